#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs the generated s6 files with stand-ins for devmand and devmanadm:
#  - the devman longrun under s6-supervise: s6 must see it ready through notification-fd,
#    which works only if `run` hands devmand the same fd number (--ready-fd 3);
#  - the devman-coldplug oneshot's execline `up`: trigger subsystems, trigger devices, settle,
#    in that order, going on when a step fails.
# The stand-ins live in a private directory: the program path in the copies is rewritten.
#   test-units-s6.sh DEVMAND DEVMANADM SRCDIR(units/s6) RUN UP
set -u

devmand=$1
devmanadm=$2
src=$3
run=$4
up=$5
for tool in s6-supervise s6-svwait s6-svc execlineb; do
	command -v "$tool" >/dev/null || { echo "$tool missing"; exit 77; }
done

tmp=$(mktemp -d)
supervise_pid=""
# shellcheck disable=SC2317 # runs from the EXIT trap
cleanup() {
	if [ -n "$supervise_pid" ]; then
		s6-svc -xd "$tmp/sv/devman" 2>/dev/null
		sleep 0.2
		kill "$supervise_pid" 2>/dev/null
		wait "$supervise_pid" 2>/dev/null
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT
fail=0
ok() { echo "ok - $1"; }
bad() { echo "FAIL - $1"; fail=1; }
expect() { # description, test command...
	desc=$1
	shift
	if "$@"; then ok "$desc"; else bad "$desc"; fi
}

mkdir -p "$tmp/bin" "$tmp/sv/devman"
# devmand stand-in: records its arguments, reports readiness on the fd given with
# --ready-fd (as devmand does) unless told not to, then runs until stopped.
cat > "$tmp/bin/devmand" <<'STUB'
#!/bin/sh
echo "$@" > "$STUB_LOG"
fd=""
while [ $# -gt 0 ]; do
	[ "$1" = --ready-fd ] && fd=$2
	shift
done
if [ -n "$fd" ] && [ ! -e "$STUB_NEVER_READY" ]; then
	eval "echo >&$fd"
fi
exec sleep 60
STUB
chmod +x "$tmp/bin/devmand"

# The longrun, as installed, with only the program path moved.
sed "s|$devmand|$tmp/bin/devmand|" "$run" > "$tmp/sv/devman/run"
chmod +x "$tmp/sv/devman/run"
cp "$src/devman/notification-fd" "$src/devman/type" "$tmp/sv/devman/"
grep -q "$tmp/bin/devmand" "$tmp/sv/devman/run" || bad "run does not start $devmand"
expect "devman is a longrun" [ "$(cat "$tmp/sv/devman/type")" = longrun ]

STUB_LOG=$tmp/devmand.args STUB_NEVER_READY=$tmp/never-ready s6-supervise "$tmp/sv/devman" &
supervise_pid=$!
# s6-svwait needs the status file s6-supervise creates once it runs.
tries=0
until s6-svstat "$tmp/sv/devman" >/dev/null 2>&1 || [ $tries -ge 50 ]; do
	sleep 0.1
	tries=$((tries + 1))
done
if s6-svwait -U -t 5000 "$tmp/sv/devman"; then
	ok "s6 sees devmand ready through notification-fd"
else
	bad "s6 never saw devmand ready"
fi
args=$(cat "$tmp/devmand.args" 2>/dev/null)
expect "devmand gets --ready-fd matching notification-fd ($args)" \
	[ "$args" = "--ready-fd $(cat "$tmp/sv/devman/notification-fd")" ]

# The wait above must be able to fail: a devmand that never reports readiness.
touch "$tmp/never-ready"
rm -f "$tmp/devmand.args"
s6-svc -r "$tmp/sv/devman"
tries=0
until [ -s "$tmp/devmand.args" ] || [ $tries -ge 50 ]; do
	sleep 0.1
	tries=$((tries + 1))
done
expect "the restarted devmand is up" s6-svwait -u -t 5000 "$tmp/sv/devman"
if s6-svwait -U -t 1000 "$tmp/sv/devman" 2>/dev/null; then
	bad "s6-svwait reported a never-ready service as ready"
else
	ok "a devmand that never reports readiness is not taken as ready"
fi

# The coldplug oneshot.
cat > "$tmp/bin/devmanadm" <<'STUB'
#!/bin/sh
echo "$@" >> "$STUB_LOG"
[ "$1 $2" != "trigger --type=subsystems" ]
STUB
chmod +x "$tmp/bin/devmanadm"
expect "devman-coldplug is a oneshot" [ "$(cat "$src/devman-coldplug/type")" = oneshot ]
expect "devman-coldplug depends on devman" [ -f "$src/devman-coldplug/dependencies.d/devman" ]
sed "s|$devmanadm|$tmp/bin/devmanadm|g" "$up" > "$tmp/up"
if STUB_LOG=$tmp/adm.log execlineb -P "$tmp/up"; then
	ok "up runs"
else
	bad "up failed"
fi
printf 'trigger --type=subsystems --action=add\ntrigger --type=devices --action=add\nsettle\n' > "$tmp/want"
if cmp -s "$tmp/want" "$tmp/adm.log"; then
	ok "up triggers subsystems, then devices, then settles, past a failing step"
else
	bad "up ran: $(cat "$tmp/adm.log")"
fi
exit $fail
