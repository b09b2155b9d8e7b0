resource "vsphere_virtual_machine" "web" {
  count    = 3
  name     = "web-${count.index}"
  num_cpus = 2
  memory   = 4096

  dynamic "disk" {
    for_each = var.disks
    content {
      size = disk.value
    }
  }
  network_interface {
    adapter_type = var.nic["type"]
  }
  clone {
    template_uuid = data.vsphere_virtual_machine.tpl.id
  }
}
