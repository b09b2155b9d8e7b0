// advisor-vcsim: govmomi's vCenter simulator (vcsim) with hosts shaped like the servers of the
// performance papers, for advisor's vCenter tests and benchmark.
//
// vcsim's stock host is 2 sockets with 2 cores, one NUMA node and no hyper-threading; advisor
// needs hosts like the HP DL580 G7 (hosts/hp-dl580-g7.yaml: 4 sockets x 10 cores, HT, 4 NUMA
// nodes, 1 TB). Clustered hosts get that shape, each with its own copy of the hardware info;
// standalone hosts keep vcsim's stock shape, so a host with fewer NUMA nodes than sockets exists.
// VMs, their cores per socket, affinity and devices are set by the tests through the API.
// With -small-hosts N the last N hosts of each cluster are shaped like a two-socket server
// (2 x 8 cores, HT, 2 NUMA nodes, 256 GB), so a cluster holds two kinds of host (LIM012).
// -instance-uuid sets the vCenter's About.instanceUuid: vcsim derives it from the machine, so
// two simulators on one machine would otherwise share it.
//
// Users: -username/-password can log in and read everything. -noaccess-user logs in with the
// same password but holds no privilege (HasPrivilegeOnEntity answers false, as vCenter does for
// a user without a role); -noview-user is granted by HasPrivilegeOnEntity but every
// inventory read fails with NoPermission. Any other name or password gets InvalidLogin
// (vcsim itself accepts any user; a Registry.Handler enforces these three).
//
// On start it prints "VCSIM_URL=<url>" and "VCSIM_CERT=<pem file>" and runs until SIGTERM or
// SIGINT (or, with -stdinexit, the end of its standard input).
package main

import (
	"crypto/tls"
	"flag"
	"fmt"
	"log"
	"net/url"
	"os"
	"os/signal"
	"sort"
	"syscall"

	"github.com/vmware/govmomi/simulator"
	"github.com/vmware/govmomi/simulator/esx"
	"github.com/vmware/govmomi/vim25/methods"
	"github.com/vmware/govmomi/vim25/mo"
	"github.com/vmware/govmomi/vim25/soap"
	"github.com/vmware/govmomi/vim25/types"
)

const (
	threadsPerCore = 2
	hz             = 2400000000
)

// A host's NUMA shape: sockets, cores per socket, NUMA nodes (one per socket here), memory, CPU.
type hostShape struct {
	sockets, coresPerSocket, nodes int
	memoryBytes                    int64
	cpu                            string
}

var (
	dl580 = hostShape{4, 10, 4, int64(1) << 40, "Intel(R) Xeon(R) CPU E7- 4870  @ 2.40GHz"}  // 1 TB, 64 x 16 GB
	small = hostShape{2, 8, 2, int64(256) << 30, "Intel(R) Xeon(R) CPU E5-2650 0 @ 2.00GHz"} // 256 GB
)

// hardware returns a fresh hardware description; every host gets its own (vcsim hands each host
// a shallow copy of one shared value, and the slices inside would be shared).
func hardware(shape hostShape) *types.HostHardwareInfo {
	sockets, coresPerSocket, nodes, memoryBytes := shape.sockets, shape.coresPerSocket, shape.nodes, shape.memoryBytes
	info := *esx.HostHardwareInfo
	info.CpuInfo = types.HostCpuInfo{
		NumCpuPackages: int16(sockets),
		NumCpuCores:    int16(sockets * coresPerSocket),
		NumCpuThreads:  int16(sockets * coresPerSocket * threadsPerCore),
		Hz:             hz,
	}
	threadsPerPkg := coresPerSocket * threadsPerCore
	info.CpuPkg = nil
	info.NumaInfo = &types.HostNumaInfo{Type: "NUMA", NumNodes: int32(nodes)}
	for p := 0; p < sockets; p++ {
		ids := make([]int16, threadsPerPkg)
		for i := range ids {
			ids[i] = int16(p*threadsPerPkg + i)
		}
		info.CpuPkg = append(info.CpuPkg, types.HostCpuPackage{
			Index:       int16(p),
			Vendor:      "intel",
			Hz:          hz,
			BusHz:       133000000,
			Description: shape.cpu,
			ThreadId:    ids,
		})
		info.NumaInfo.NumaNode = append(info.NumaInfo.NumaNode, types.HostNumaNode{
			TypeId:            byte(p),
			CpuID:             append([]int16(nil), ids...),
			MemoryRangeBegin:  int64(p) * (memoryBytes / int64(nodes)),
			MemoryRangeLength: memoryBytes / int64(nodes),
		})
	}
	info.MemorySize = memoryBytes
	return &info
}

func reshape(h *simulator.HostSystem, shape hostShape) {
	sockets, coresPerSocket, memoryBytes := shape.sockets, shape.coresPerSocket, shape.memoryBytes
	h.Hardware = hardware(shape)
	s := *h.Summary.Hardware
	s.CpuModel = h.Hardware.CpuPkg[0].Description
	s.CpuMhz = hz / 1000000
	s.NumCpuPkgs = int16(sockets)
	s.NumCpuCores = int16(sockets * coresPerSocket)
	s.NumCpuThreads = int16(sockets * coresPerSocket * threadsPerCore)
	s.MemorySize = memoryBytes
	h.Summary.Hardware = &s
	// ESXi 5.5 Update 1 (build 1623387), the version the DL580 G7 paper ran.
	product := h.Config.Product
	product.Version, product.Build = "5.5.0", "1623387"
	product.FullName = "VMware ESXi 5.5.0 build-1623387"
	h.Config.Product = product
	power := *h.Config.PowerSystemInfo
	power.CurrentPolicy = types.HostPowerPolicy{Key: 1, Name: "PowerPolicy.static.name", ShortName: "static"}
	h.Config.PowerSystemInfo = &power
}

// authorization answers HasPrivilegeOnEntity as vCenter does for a user who holds no role:
// nothing granted. vcsim grants everything to everyone; other methods are vcsim's own.
type authorization struct {
	*simulator.AuthorizationManager
	denied string
}

func (a *authorization) HasPrivilegeOnEntity(ctx *simulator.Context, req *types.HasPrivilegeOnEntity) soap.HasFault {
	if ctx.Session != nil && ctx.Session.UserName == a.denied {
		return &methods.HasPrivilegeOnEntityBody{Res: &types.HasPrivilegeOnEntityResponse{Returnval: make([]bool, len(req.PrivId))}}
	}
	return a.AuthorizationManager.HasPrivilegeOnEntity(req)
}

func main() {
	listen := flag.String("l", "127.0.0.1:0", "listen address (port 0: any free port)")
	clusters := flag.Int("cluster", 1, "clusters of DL580 G7 hosts")
	clusterHosts := flag.Int("host", 1, "DL580 G7 hosts per cluster")
	standalone := flag.Int("standalone-host", 1, "standalone hosts with vcsim's stock shape (2 sockets, 1 NUMA node)")
	vms := flag.Int("vm", 0, "vcsim's stock VMs per resource pool")
	user := flag.String("username", "advisor", "user who can read the inventory")
	password := flag.String("password", "", "password of every user (required)")
	noaccess := flag.String("noaccess-user", "noaccess", "user without any privilege")
	noview := flag.String("noview-user", "noview", "user whose inventory reads fail with NoPermission")
	delay := flag.Int("delay", 0, "milliseconds added to every API call (a stand-in for network and server time)")
	stdinExit := flag.Bool("stdinexit", false, "also stop at the end of standard input")
	smallHosts := flag.Int("small-hosts", 0, "the last N hosts of each cluster shaped as 2 x 8 cores, 2 NUMA nodes, 256 GB")
	instanceUUID := flag.String("instance-uuid", "", "the vCenter's About.instanceUuid (default: vcsim's own)")
	flag.Parse()
	if *password == "" {
		log.Fatal("-password is required")
	}

	model := simulator.VPX()
	model.DelayConfig.Delay = *delay
	model.Cluster, model.ClusterHost, model.Host, model.Machine = *clusters, *clusterHosts, *standalone, *vms
	if *instanceUUID != "" {
		model.ServiceContent.About.InstanceUuid = *instanceUUID
	}
	if err := model.Create(); err != nil {
		log.Fatal(err)
	}
	// Shaped in name order, so "the last N hosts" are the same ones from run to run.
	var clustered []*simulator.HostSystem
	for _, ref := range simulator.Map.All("HostSystem") {
		h := ref.(*simulator.HostSystem)
		if h.Parent != nil && h.Parent.Type == "ClusterComputeResource" {
			clustered = append(clustered, h)
		}
	}
	sort.Slice(clustered, func(i, j int) bool { return clustered[i].Name < clustered[j].Name })
	seen := map[types.ManagedObjectReference]int{} // hosts shaped so far, per cluster
	for _, h := range clustered {
		seen[*h.Parent]++
		if seen[*h.Parent] > *clusterHosts-*smallHosts {
			reshape(h, small)
		} else {
			reshape(h, dl580)
		}
	}

	authz := simulator.Map.Get(*model.ServiceContent.AuthorizationManager).(*simulator.AuthorizationManager)
	simulator.Map.Put(&authorization{authz, *noaccess})
	simulator.Map.Handler = func(ctx *simulator.Context, m *simulator.Method) (mo.Reference, types.BaseMethodFault) {
		if login, ok := m.Body.(*types.Login); ok {
			known := login.UserName == *user || login.UserName == *noaccess || login.UserName == *noview
			if !known || login.Password != *password {
				return nil, new(types.InvalidLogin)
			}
			return nil, nil
		}
		if ctx.Session != nil && ctx.Session.UserName == *noview {
			switch m.Name {
			case "CreateContainerView", "RetrievePropertiesEx", "RetrieveProperties", "ContinueRetrievePropertiesEx":
				return nil, &types.NoPermission{Object: &model.ServiceContent.RootFolder, PrivilegeId: "System.View"}
			}
		}
		return nil, nil
	}

	model.Service.Listen = &url.URL{Host: *listen}
	model.Service.TLS = new(tls.Config)
	server := model.Service.NewServer()
	certFile, err := server.CertificateFile()
	if err != nil {
		log.Fatal(err)
	}
	endpoint := *server.URL
	endpoint.User = nil // any credentials in the URL are vcsim's defaults, not the users above
	fmt.Printf("VCSIM_URL=%s\nVCSIM_CERT=%s\n", &endpoint, certFile)
	os.Stdout.Sync()

	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGINT, syscall.SIGTERM)
	if *stdinExit {
		go func() {
			_, _ = os.Stdin.Read(make([]byte, 1))
			stop <- syscall.SIGTERM
		}()
	}
	<-stop
	server.Close()
	model.Remove()
}
