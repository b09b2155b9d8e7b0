#!/usr/bin/env bash
# Run every atheris target for N seconds each (default 600), one at a time, at low priority.
#
#   fuzz/run_all.sh            # 600 s per target, all eight targets (~80 minutes)
#   fuzz/run_all.sh 60         # a one-minute smoke run of each
#   fuzz/run_all.sh 600 vmx ovf   # only some targets
#
# Each target works in $FUZZ_OUT/<target>/ (default fuzz/.out/, git-ignored): the inputs it
# finds go to corpus/ there (the seeds in fuzz/corpus/<target>/ are only read), crash-*,
# timeout-* and oom-* files are written there too (-artifact_prefix), and the log is fuzz.log.
# The script prints one summary line per target and exits 1 if any target found a crash.
set -u

seconds="${1:-600}"
shift $(( $# > 0 ? 1 : 0 ))
here="$(cd "$(dirname "$0")" && pwd)"
out="${FUZZ_OUT:-$here/.out}"
python="${PYTHON:-python}"
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    targets=(vmx ovf ova packer_json packer_hcl terraform spec rules)
fi

found=0
printf '%-12s %8s %12s %8s %8s  %s\n' target seconds execs corpus crashes artifacts
for target in "${targets[@]}"; do
    script="$here/fuzz_${target}.py"
    if [ ! -f "$script" ]; then
        echo "no such target: $target ($script)" >&2
        found=1
        continue
    fi
    work="$out/$target"
    mkdir -p "$work/corpus"
    start=$(date +%s)
    # -timeout: one input taking this long is a hang worth a timeout-* file.
    nice -n 10 "$python" "$script" "$work/corpus" "$here/corpus/$target" \
        -max_total_time="$seconds" -max_len="${FUZZ_MAX_LEN:-16384}" -timeout=30 -rss_limit_mb=2048 \
        -print_final_stats=1 \
        -artifact_prefix="$work/" >"$work/fuzz.log" 2>&1
    rc=$?
    elapsed=$(( $(date +%s) - start ))
    execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$work/fuzz.log" | grep -o '[0-9]*$' | tail -1)
    if [ -z "$execs" ]; then  # killed before the final stats: the last progress line says how far
        execs=$(grep -o '^#[0-9]*' "$work/fuzz.log" | tr -d '#' | tail -1)
    fi
    corpus=$(find "$work/corpus" -type f | wc -l)
    artifacts=$(find "$work" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'timeout-*' -o -name 'oom-*' -o -name 'leak-*' \) | sort)
    count=$(printf '%s' "$artifacts" | grep -c . || true)
    if [ "$count" -gt 0 ] || [ "$rc" -ne 0 ]; then
        found=1
    fi
    printf '%-12s %8s %12s %8s %8s  %s\n' "$target" "$elapsed" "${execs:-?}" "$corpus" "$count" \
        "$(echo $artifacts) (exit $rc, log $work/fuzz.log)"
done
exit $found
