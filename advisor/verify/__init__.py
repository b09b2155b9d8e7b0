"""`advisor verify`: what ESXi logged about the NUMA topology it built, held against the prediction.

The data flow, one module a step: esxilog (vmware.log lines and the vmdumper one-liner's output
-> LoggedVM) and schedstats (`sched-stats -t numa-clients` -> LoggedClients), compare (a logged VM
-> the same VM on the host given -> Verdict), report (verdicts -> text, JSON, SARIF, HTML).
"""
