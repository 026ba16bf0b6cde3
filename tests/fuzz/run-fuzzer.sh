#!/bin/sh
# Runs one libFuzzer target for a bounded time. New inputs go to a work corpus in the build
# dir (never into the source tree); a crash leaves its input there as crash-* and fails the
# test: copy it into tests/fuzz/corpus/NAME/ with the fix, so the replay suite keeps it.
# Usage: run-fuzzer.sh FUZZER NAME SEED_DIR...
set -u
fuzzer=${1:?fuzzer}; name=${2:?name}; shift 2
secs=${DEVMAN_FUZZ_SECONDS:-20}
work=${DEVMAN_BUILD_ROOT:-.}/fuzz-work/$name
mkdir -p "$work/corpus"
rm -f "$work"/crash-* "$work"/leak-* "$work"/timeout-* "$work"/oom-*
echo "fuzzing $name for ${secs}s, seeds: $*"
"$fuzzer" -max_total_time="$secs" -timeout=10 -rss_limit_mb=1024 -max_len=16384 -print_final_stats=1 \
    -artifact_prefix="$work/" "$work/corpus" "$@" >"$work/log" 2>&1
rc=$?
grep -E '^(Done|#[0-9]+.*(DONE|pulse)|stat::number_of_executed_units|stat::new_units_added|INFO: seed corpus)' "$work/log" | tail -n 5
if [ $rc -ne 0 ] || ls "$work"/crash-* "$work"/leak-* "$work"/timeout-* "$work"/oom-* >/dev/null 2>&1; then
    echo "FAIL: libFuzzer exited $rc; artifacts:"
    ls "$work"/crash-* "$work"/leak-* "$work"/timeout-* "$work"/oom-* 2>/dev/null
    tail -n 60 "$work/log"
    exit 1
fi
echo "ok: $(ls "$work/corpus" | wc -l) inputs in the work corpus, no crash"
