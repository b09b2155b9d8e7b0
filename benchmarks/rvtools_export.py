"""A generated RVTools export for the estate benchmark, and the baseline it is paired with.

    python benchmarks/rvtools_export.py write OUT.xlsx [--vms 10000]   # generate (seeded, same bytes)
    python benchmarks/rvtools_export.py read OUT.xlsx                  # the baseline: read it, nothing else

The estate: `--vms` powered-on VMs on one host per 40 VMs, in clusters of 16 hosts of one hardware
kind each (a DRS cluster is built from one server model; the kinds differ between clusters), ESXi
6.7 to 8.0, VM shapes drawn from a fixed seed (vCPUs, cores per socket, memory, NICs). The headers
are those of tests/rvtools_gen.py (RVTools 4.7.1.4's). Written with XlsxWriter in constant-memory
mode, so generating 10,000 VMs takes seconds.

The baseline reads the sheets advisor parses into Python lists with python-calamine, the
library advisor reads them with: `advisor check` over the same file, paired with it, is the cost
of everything advisor does beyond reading the workbook.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SHEETS = ("vInfo", "vCPU", "vMemory", "vNetwork", "vHost")  # those advisor parses: advisor.rvtools.workbook.PARSED
_KINDS = ((2, 10, "Intel(R) Xeon(R) CPU E5-2660 v2 @ 2.20GHz"), (2, 16, "Intel(R) Xeon(R) Gold 6142 CPU @ 2.60GHz"),
          (2, 24, "Intel(R) Xeon(R) Gold 6248R CPU @ 3.00GHz"), (2, 32, "AMD EPYC 7543 32-Core Processor"))
_ESX = ("VMware ESXi 6.7.0 build-8169922", "VMware ESXi 7.0.3 build-19193900", "VMware ESXi 8.0.3 build-24674464")


def estate(vms: int, seed: int = 37) -> dict[str, list[list[object]]]:
    sys.path.insert(0, str(HERE.parent / "tests"))
    from rvtools_gen import GenHost, GenVM, sheets

    rng = random.Random(seed)
    hosts = []
    for i in range(max(1, vms // 40)):
        sockets, cores, model = _KINDS[(i // 16) % len(_KINDS)]
        hosts.append(GenHost(f"esx{i:04d}", sockets=sockets, cores=cores, cpu_model=model, cluster=f"cl{i // 16:03d}",
                             memory_mb=rng.choice((262144, 524288, 1048576)), esx=_ESX[(i // 16) % len(_ESX)]))
    guests = []
    for i in range(vms):
        cpus = rng.choice((1, 2, 2, 4, 4, 4, 8, 8, 12, 16, 24, 32))
        cps = rng.choice([c for c in (1, 2, 4, 8) if cpus % c == 0])
        guests.append(GenVM(f"vm{i:05d}", hosts[i % len(hosts)].name, cpus=cpus, cps=cps,
                            memory_mb=rng.choice((2048, 4096, 8192, 16384, 32768, 131072)),
                            nics=rng.choice((["Vmxnet3"], ["Vmxnet3", "Vmxnet3"], ["E1000e"])),
                            latency=rng.choice(("normal",) * 19 + ("high",)),
                            hw=rng.choice(("vmx-13", "vmx-15", "vmx-19"))))
    return sheets(hosts, guests)


def write(path: Path, vms: int) -> None:
    import xlsxwriter

    book = xlsxwriter.Workbook(str(path), {"constant_memory": True, "strings_to_numbers": False,
                                           "strings_to_formulas": False, "strings_to_urls": False})
    for name, rows in estate(vms).items():
        sheet = book.add_worksheet(name)
        for r, row in enumerate(rows):
            for c, value in enumerate(row):
                if isinstance(value, float | int):
                    sheet.write_number(r, c, value)
                elif value != "":
                    sheet.write_string(r, c, str(value))
    book.close()


def sheets(path: Path) -> dict[str, list[list[object]]]:
    """The sheets advisor parses, as python-calamine gives them."""
    from python_calamine import CalamineWorkbook

    book = CalamineWorkbook.from_path(str(path))
    return {name: book.get_sheet_by_name(name).to_python(skip_empty_area=False)
            for name in SHEETS if name in book.sheet_names}


def read(path: Path) -> int:
    return sum(len(r) for rows in sheets(path).values() for r in rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=("write", "read"))
    parser.add_argument("path", type=Path)
    parser.add_argument("--vms", type=int, default=10_000)
    args = parser.parse_args()
    if args.action == "write":
        write(args.path, args.vms)
    else:
        print(read(args.path))
    return 0


if __name__ == "__main__":
    sys.exit(main())
