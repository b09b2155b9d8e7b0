# advisor: ignore HW001 -- pinned by the platform team
variable "cpus" {
  type    = number
  default = 4
}

source "vsphere-iso" "linux" {
  vm_name              = "tpl-linux"
  CPUs                 = var.cpus
  cpu_cores            = 2
  RAM                  = 8192
  RAM_hot_plug         = true
  firmware             = "efi-secure"
  disk_controller_type = ["pvscsi", "nvme"]
  storage {
    disk_size = 40960
  }
  storage {
    disk_size             = 8192
    disk_controller_index = 1
  }
  network_adapters {
    network_card = "vmxnet3"
  }
  configuration_parameters = {
    "tools.syncTime" = "FALSE"
  }
}
