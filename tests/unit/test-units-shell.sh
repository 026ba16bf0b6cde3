#!/bin/sh
# SPDX-License-Identifier: MIT
# Checks the generated init scripts: every shell script parses (sh -n, and busybox
# ash when present: the rcS snippet runs under it), passes shellcheck, and has no
# @placeholder@ left; the execline and systemd files have their paths substituted.
#   test-units-shell.sh DEVMANADM EXECLINE_UP -- SCRIPT...
set -u

devmanadm=$1
up=$2
shift 3
fail=0
checks=0

check() { # description, command...
	desc=$1
	shift
	checks=$((checks + 1))
	if out=$("$@" 2>&1); then
		echo "ok - $desc"
	else
		echo "FAIL - $desc"
		printf '%s\n' "$out" | sed 's/^/    /'
		fail=1
	fi
}

# shellcheck disable=SC2317 # called through check()
no_placeholder() {
	! grep -n '@[a-z_]*@' "$1"
}

command -v shellcheck >/dev/null || { echo "shellcheck missing"; exit 77; }
busybox=$(command -v busybox || true)

[ $# -ge 6 ] || { echo "FAIL - expected the generated scripts, got $# files"; exit 1; }
for f in "$@"; do
	check "sh -n $f" sh -n "$f"
	if [ -n "$busybox" ]; then
		check "busybox ash -n $f" "$busybox" ash -n "$f"
	fi
	check "shellcheck $f" shellcheck --severity=style "$f"
	check "no placeholder in $f" no_placeholder "$f"
	head -n1 "$f" | grep -q '^#!' || { echo "FAIL - $f has no #! line"; fail=1; }
done

check "no placeholder in $up" no_placeholder "$up"
check "coldplug oneshot runs $devmanadm" grep -q "^foreground { $devmanadm trigger --type=subsystems --action=add }" "$up"
check "coldplug oneshot settles" grep -qx "$devmanadm settle" "$up"

# The checker itself must reject a broken script, or the checks above prove nothing.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck disable=SC2016 # the $ is meant for the checked script
printf '#!/bin/sh\nif [ -x /x ]; then\n  echo $UNQUOTED_VAR\n' > "$tmp/broken"
checks=$((checks + 1))
if sh -n "$tmp/broken" 2>/dev/null; then
	echo "FAIL - sh -n accepted an unterminated if"
	fail=1
fi
# shellcheck disable=SC2016
printf '#!/bin/sh\necho $1\n' > "$tmp/lint"
checks=$((checks + 1))
if shellcheck "$tmp/lint" >/dev/null 2>&1; then
	echo "FAIL - shellcheck accepted an unquoted expansion"
	fail=1
fi

echo "$checks checks"
exit $fail
