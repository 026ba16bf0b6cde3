#!/bin/sh
# Rules reload on the live kernel (private roots): a changed rules file is noticed before the
# next event; `devmanadm control --reload` and SIGHUP reload without losing queued events; a
# broken line is reported with file:line and the rest still applies.
# Usage: rules-reload.sh BUILDDIR
set -u
build=${1:?build dir}
. "$(dirname "$0")/lib.sh"
require root
test_dirs reload
rules=$tmp/rules
mkdir -p "$rules"
version() {
    printf 'ACTION=="change", KERNEL=="null", SYMLINK+="reload/%s"\n' "$1" > "$rules/50-reload.rules.tmp"
    printf 'ACTION=="change", KERNEL=="zero", RUN+="/bin/touch %s/zero-%s"\n' "$tmp" "$1" >> "$rules/50-reload.rules.tmp"
    mv "$rules/50-reload.rules.tmp" "$rules/50-reload.rules"
}
change() { echo change > /sys/devices/virtual/mem/null/uevent; echo change > /sys/devices/virtual/mem/zero/uevent; }

version v1
start_daemon --rules-dir "$rules" --log-level=info
change; adm settle
[ -L "$dev/reload/v1" ] && ok "rules v1 applied" || nok "v1 link missing"

# a changed file is noticed before the next event (checked at most every 3 s)
version v2; sleep 3.2
change; adm settle
[ -L "$dev/reload/v2" ] && [ ! -e "$dev/reload/v1" ] && ok "changed rules file noticed before the next event" \
    || nok "v2 not applied"

# control --reload while events are queued: none lost, all with the new rules
adm control --stop-exec-queue
change
version v3
adm control --reload
sleep 0.2
[ -e "$tmp/zero-v3" ] && nok "an event ran while the exec queue was stopped" || ok "events wait while the exec queue is stopped"
adm control --start-exec-queue
adm settle
[ -L "$dev/reload/v3" ] && [ -e "$tmp/zero-v3" ] && ok "queued events processed after --reload, with the new rules" \
    || nok "queued events after reload: v3 link $([ -L "$dev/reload/v3" ] && echo yes || echo no), zero $([ -e "$tmp/zero-v3" ] && echo yes || echo no)"

# SIGHUP
version v4
kill -HUP "$daemon"; sleep 0.2
change; adm settle
[ -L "$dev/reload/v4" ] && ok "SIGHUP reloads" || nok "v4 not applied after SIGHUP"

# a broken line: reported with file:line, the other rules still apply
version v5
printf 'KERNEL=="null", FROBNICATE="yes"\n' >> "$rules/50-reload.rules"
adm control --reload; sleep 0.2
change; adm settle
grep -q "50-reload.rules:3" "$tmp/daemon.log" && ok "the broken line is reported with file:line" || nok "no file:line message"
[ -L "$dev/reload/v5" ] && ok "the rest of the file still applies" || nok "v5 not applied"
kill -0 "$daemon" && ok "daemon alive" || nok "daemon died"
results
