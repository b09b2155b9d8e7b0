variable "disks" {
  default = [1024, 2048]
}

source "vmware-iso" "desk" {
  cpus                 = 2
  memory               = 2048
  version              = 19
  disk_size            = 40960
  disk_adapter_type    = "nvme"
  disk_additional_size = var.disks
  network_adapter_type = "e1000e"
  vmx_data = {
    "numa.vcpu.preferHT" = "TRUE"
    (var.key)            = "x"
  }
}

build {
  sources = ["source.vmware-iso.desk"]
}
