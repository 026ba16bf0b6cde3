#!/bin/bash
# SPDX-License-Identifier: MIT
# Sources the bash completions and checks what they offer for a few command lines, against
# fake /sys, /dev and /run trees, with bash's default COMP_WORDBREAKS (which splits at '='
# and ':', so replies are the text after the last of them) and with one that splits at neither.
#   test-completion.sh DEVMAND_COMPLETION DEVMANADM_COMPLETION
set -u

# shellcheck source=/dev/null
source "$1" || exit 1
# shellcheck source=/dev/null
source "$2" || exit 1

fail=0
checks=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# A small fake system: two disks, a pci device with colons in its name, two tags.
mkdir -p "$tmp/sys/bus/pci" "$tmp/sys/bus/usb" "$tmp/sys/class/block" "$tmp/sys/class/input" \
	"$tmp/sys/devices/pci0000:00/0000:00:1f.2" "$tmp/sys/devices/pci0000:00/0000:00:1d.0" \
	"$tmp/dev/disk/by-id" "$tmp/run/tags/seat" "$tmp/run/tags/systemd" "$tmp/rules"
: > "$tmp/dev/sda"
: > "$tmp/dev/sdb"
: > "$tmp/dev/null"
: > "$tmp/snap.txt"
: > "$tmp/snap.old"

DEFAULT_BREAKS=$' \t\n"\'><=;|&(:'

# Completes the line (cursor at its end) with completion function $1 and breaks $2, and
# compares the sorted replies with the remaining arguments.
expect() {
	local fn=$1 breaks=$2 line=$3
	shift 3
	local COMP_LINE=$line COMP_POINT=${#line} COMP_WORDBREAKS=$breaks
	local -a COMP_WORDS=() COMPREPLY=()
	local COMP_CWORD=0
	read -r -a COMP_WORDS <<<"$line"
	COMP_CWORD=${#COMP_WORDS[@]}
	[[ $line == *' ' ]] || COMP_CWORD=$((COMP_CWORD - 1))
	"$fn" "${COMP_WORDS[0]}" "${COMP_WORDS[COMP_CWORD]:-}" ""
	local got want
	got=$(printf '%s\n' "${COMPREPLY[@]}" | sort)
	want=$(printf '%s\n' "$@" | sort)
	checks=$((checks + 1))
	if [[ $got == "$want" ]]; then
		echo "ok - '$line'"
	else
		echo "FAIL - '$line'"
		echo "    expected: $(echo "$want" | tr '\n' ' ')"
		echo "    got:      $(echo "$got" | tr '\n' ' ')"
		fail=1
		return 1
	fi
}

adm() { expect _devmanadm "$DEFAULT_BREAKS" "$@"; }
adm_nobreaks() { expect _devmanadm $' \t\n' "$@"; }
dmd() { expect _devmand "$DEFAULT_BREAKS" "$@"; }

checks=$((checks + 1))
if command -v shellcheck >/dev/null; then
	if shellcheck -s bash "$1" "$2"; then
		echo "ok - shellcheck"
	else
		echo "FAIL - shellcheck"
		fail=1
	fi
fi

checks=$((checks + 1))
if [[ $(complete -p devmanadm) == "complete -F _devmanadm devmanadm" &&
	$(complete -p devmand) == "complete -F _devmand devmand" ]]; then
	echo "ok - completions registered"
else
	echo "FAIL - completions not registered"
	fail=1
fi

# Verbs and global options.
adm "devmanadm " trigger settle info tree classes control monitor test test-builtin verify hwdb \
	static-nodes coldplug snapshot compare mdev-convert version
adm "devmanadm t" trigger tree test test-builtin
adm "devmanadm m" monitor mdev-convert
adm "devmanadm s" settle static-nodes snapshot
adm "devmanadm --" --sysfs --dev --run --debug --help --version
adm "devmanadm --sysfs $tmp/sy" "$tmp/sys/"
adm "devmanadm --sysfs $tmp/sys c" classes control coldplug compare

# Verb options and their values, '=' and space forms.
adm "devmanadm trigger --ty" --type=
adm "devmanadm trigger --type=" devices subsystems
adm_nobreaks "devmanadm trigger --type=s" --type=subsystems
adm "devmanadm trigger --action=ch" change
adm "devmanadm trigger --action " add remove change move online offline bind unbind
adm "devmanadm trigger --s" --subsystem-match= --subsystem-nomatch= --sysname-match= --sysname-nomatch= \
	--settle
adm "devmanadm trigger --parent-match=$tmp/sys/devices/pci0000:00/0000:00:1f" "1f.2/"
adm "devmanadm trigger --d" --dry-run
adm "devmanadm --sysfs $tmp/sys trigger --subsystem-match=" block input pci usb
adm "devmanadm --sysfs=$tmp/sys trigger --subsystem-nomatch=p" pci
adm "devmanadm --run $tmp/run trigger --tag-match=s" seat systemd
adm "devmanadm monitor --" --kernel --udev --property --subsystem-match= --tag-match= --help
adm "devmanadm control --log-level=d" debug
adm "devmanadm control --" --reload --exit --ping --log-level= --stop-exec-queue --start-exec-queue \
	--property= --children-max= --help
adm "devmanadm settle --" --timeout= --exit-if-exists= --seq-start= --seq-end= --quiet --help
adm_nobreaks "devmanadm settle --exit-if-exists=$tmp/snap.t" "--exit-if-exists=$tmp/snap.txt"
adm "devmanadm info --query=" all path name symlink property
adm "devmanadm info --e" --export-db
adm "devmanadm info --" --path= --name= --query= --root --export-db --cleanup-db --attribute-walk --help
adm "devmanadm hwdb --" --update --test= --help
adm "devmanadm test --" --action= --apply --event-timeout= --timeout-signal= --help

# Device names under the device directory and paths under sysfs.
adm "devmanadm --dev $tmp/dev info --name=sd" sda sdb
adm "devmanadm --dev $tmp/dev info --name=di" disk/
adm_nobreaks "devmanadm --dev $tmp/dev info --name=n" --name=null
adm "devmanadm --dev $tmp/dev info sd" sda sdb
adm "devmanadm --dev $tmp/dev info $tmp/dev/s" "$tmp/dev/sda" "$tmp/dev/sdb"
# ':' is a word break: readline replaces only the text after the last one.
adm "devmanadm --sysfs $tmp/sys test $tmp/sys/devices/pci0000:00/0000:00:1" "1f.2/" "1d.0/"
adm_nobreaks "devmanadm test $tmp/sys/devices/pci0000:00/0000:00:1f" \
	"$tmp/sys/devices/pci0000:00/0000:00:1f.2/"
adm "devmanadm info --path=$tmp/sys/devices/p" "$tmp/sys/devices/pci0000:00/" # after the '='
adm "devmanadm info --path=$tmp/sys/devices/pci0000:00/0000:00:1d" "1d.0/" # after the last ':'
adm_nobreaks "devmanadm info --path=$tmp/sys/devices/pci0000:00/0000:00:1d" \
	"--path=$tmp/sys/devices/pci0000:00/0000:00:1d.0/"
adm "devmanadm test-builtin pa" path_id
adm "devmanadm test-builtin path_id $tmp/sys/dev" "$tmp/sys/devices/"
adm "devmanadm snapshot -o $tmp/snap." "$tmp/snap.txt" "$tmp/snap.old"
adm "devmanadm snapshot --rules-dir $tmp/ru" "$tmp/rules/" "$tmp/run/"
adm "devmanadm classes --compare $tmp/snap.o" "$tmp/snap.old"
adm "devmanadm compare $tmp/snap.t" "$tmp/snap.txt"
adm "devmanadm mdev-convert $tmp/snap.t" "$tmp/snap.txt"
adm "devmanadm snapshot --" --output= --sysfs= --rules-dir --no-rules --help
adm "devmanadm snapshot --output=$tmp/snap.o" "$tmp/snap.old"
adm "devmanadm compare --" --ignore= --verbose --rules-dir --no-rules --help
adm "devmanadm compare --ignore=dev" devt devtype
adm_nobreaks "devmanadm compare --ignore=p" --ignore=parent --ignore=props --ignore=prop:

# devmand.
dmd "devmand --d" --daemon --debug --dev
dmd "devmand --resolve-names=l" late
dmd "devmand --re" --resolve-names= --ready-fd --receive-buffer
dmd "devmand --res" --resolve-names=
dmd "devmand --log-target " console kmsg syslog auto
dmd "devmand --log-level=w" warning
dmd "devmand --timeout-signal SIGTE" SIGTERM
dmd "devmand --rules-dir $tmp/rul" "$tmp/rules/"
dmd "devmand --config $tmp/snap.t" "$tmp/snap.txt"
dmd "devmand --children-max " # a number: nothing to offer
dmd "devmand --" --daemon --debug --once --sysfs --dev --run --rules-dir --config --children-max \
	--exec-delay --event-timeout --timeout-signal --resolve-names= --log-target= --log-level \
	--ready-fd --mdev-conf --receive-buffer --sched-slice --uevent-socket --help --version
dmd "devmand --mdev-conf $tmp/snap.o" "$tmp/snap.old"
dmd "devmand --sched-slice " # a number: nothing to offer

# devmand's completion alone (bash-completion loads it on demand, before devmanadm's): it finds
# the helpers in devmanadm's completion beside it.
checks=$((checks + 1))
# shellcheck disable=SC2016 # the inner script's own $1
if out=$(env -i PATH="$PATH" bash -c 'source "$1" && declare -F _devman_add_words >/dev/null &&
	COMP_LINE="devmand --log-level=w" COMP_POINT=21 COMP_WORDBREAKS=" " && _devmand &&
	echo "${COMPREPLY[*]}"' _ "$1") && [[ $out == "--log-level=warning" ]]; then
	echo "ok - devmand's completion loads devmanadm's helpers by itself"
else
	echo "not ok - devmand's completion alone: '$out'"
	fail=$((fail + 1))
fi

# The harness itself must notice a wrong answer.
checks=$((checks + 1))
if (expect _devmanadm "$DEFAULT_BREAKS" "devmanadm t" trigger >/dev/null); then
	echo "FAIL - a wrong expectation passed"
	fail=1
fi

echo "$checks checks"
exit $fail
