"""RVTools exports as a running estate: the workbook (or its CSV folder) read by header name, each
host with its powered-on VMs turned into a spec, and what an export cannot say named as such.

Data flow: workbook (xlsx or `RVTools_tab<sheet>.csv` files -> Tables, bounded) -> columns (a
Table's columns by header name, as values) -> estate (columns -> spec documents, one per host, and
where each VM and host came from) -> the same evaluation as a spec file (as
advisor.vcenter.core.check_docs), with findings pointed back at the sheet and row.
Column names and their meaning: ../shared/reference/rvtools.md.
"""
