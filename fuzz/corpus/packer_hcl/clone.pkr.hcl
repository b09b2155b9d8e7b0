source "vsphere-clone" "copy" {
  template  = "base-tpl"
  CPUs      = 8
  disk_size = 102400
  notes     = <<-EOT
    cloned from ${var.src}
  EOT
}
