#!/bin/sh
# A hanging PROGRAM does not delay events of other devices: devmand (live kernel, private roots)
# gets a `change` for null, whose rule runs a program that sleeps, and then one for zero, whose
# rule only RUNs a marker. zero's event must complete while null's program still runs; null's
# event completes when its program ends (or is killed at the event timeout).
# Usage: hanging-program.sh BUILDDIR
set -u
build=${1:?build dir}
. "$(dirname "$0")/lib.sh"
require root
test_dirs hang
mkdir -p "$tmp/rules"
cat > "$tmp/rules/50-hang.rules" <<RULES
ACTION=="change", KERNEL=="null", PROGRAM=="/bin/sh -c 'sleep 4; echo slow'", RESULT=="slow", RUN+="/bin/touch $tmp/null-done"
ACTION=="change", KERNEL=="zero", RUN+="/bin/sh -c 'grep se.slice /proc/\$\$\$\$/sched > $tmp/zero-slice; touch $tmp/zero-done'"
RULES
start_daemon --rules-dir "$tmp/rules" --log-level=notice

t0=$(date +%s%N)
echo change > /sys/devices/virtual/mem/null/uevent
echo change > /sys/devices/virtual/mem/zero/uevent
for _ in $(seq 300); do [ -e "$tmp/zero-done" ] && break; sleep 0.01; done
t1=$(date +%s%N)
zero_ms=$(( (t1 - t0) / 1000000 ))
[ -e "$tmp/zero-done" ] && [ ! -e "$tmp/null-done" ] && [ $zero_ms -lt 2000 ] \
    && ok "zero's event completed in $zero_ms ms while null's program still ran" \
    || nok "zero's event waited ($zero_ms ms, null done: $([ -e "$tmp/null-done" ] && echo yes || echo no))"
[ -e "$run/queue" ] && ok "the queue is still busy with null's event" || nok "queue empty too early"
adm settle --timeout=30
t2=$(date +%s%N)
null_ms=$(( (t2 - t0) / 1000000 ))
[ -e "$tmp/null-done" ] && [ $null_ms -ge 3500 ] && ok "null's event completed after its program ($null_ms ms)" \
    || nok "null's event: done=$([ -e "$tmp/null-done" ] && echo yes || echo no) after $null_ms ms"
# the daemon asks for a short scheduler slice (Linux 6.12+ honours it); its children do not
# inherit it (SCHED_FLAG_RESET_ON_FORK)
slice() { sed -n 's/^se\.slice *: *//p' "$1" 2>/dev/null; }
kernel=$(uname -r); major=${kernel%%.*}; rest=${kernel#*.}; minor=${rest%%[!0-9]*}
if [ ! -r "/proc/$daemon/sched" ] || [ "$major" -lt 6 ] || { [ "$major" -eq 6 ] && [ "$minor" -lt 12 ]; }; then
    ok "scheduler slice not checked: kernel $kernel has no custom slices or no /proc/PID/sched"
else
    [ "$(slice "/proc/$daemon/sched")" = 100000 ] && ok "the daemon runs with a 100 us slice" \
        || nok "the daemon's slice is $(slice "/proc/$daemon/sched")"
    child=$(slice "$tmp/zero-slice")
    [ -n "$child" ] && [ "$child" != 100000 ] && ok "a RUN program has the kernel's default slice ($child ns)" \
        || nok "a RUN program's slice: '$child'"
fi
kill -0 "$daemon" && ok "daemon alive" || nok "daemon died"
results
