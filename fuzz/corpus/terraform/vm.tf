variable "cpus" {
  default = 8
}

// advisor: ignore NET001 -- lab network
resource "vsphere_virtual_machine" "db" {
  name                 = "db01"
  num_cpus             = var.cpus
  num_cores_per_socket = 4
  memory               = 32768
  latency_sensitivity  = "HIGH"
  scsi_type            = "pvscsi"
  cpu_share_level      = "custom"
  cpu_share_count      = 4000

  network_interface {
    adapter_type = "vmxnet3"
  }

  disk {
    label       = "data"
    size        = 500
    unit_number = 22
  }

  extra_config = {
    "numa.vcpu.preferHT" = "TRUE"
    "guestinfo.userdata" = base64encode(file("userdata.yaml"))
  }
}
