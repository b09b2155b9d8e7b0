module github.com/vsphere-advisor/advisor/tests/vcsim

go 1.22

require github.com/vmware/govmomi v0.46.0

require github.com/google/uuid v1.6.0 // indirect
