"""Reading a live vCenter (or ESXi host) into spec files: `advisor collect vcenter` and
`advisor check --vcenter`.

session.py connects (credentials, TLS, faults as one-line errors), collect.py reads hosts,
clusters and VMs with the PropertyCollector, to_spec.py maps what it read to spec documents
and lists what a spec cannot state. pyVmomi (the `vcenter` extra) is imported by session.py
and collect.py only, so the rest of advisor runs without it.
"""
