# The shared prologue of the root test scripts (POSIX sh, sourced):
#     set -u
#     build=${1:?build dir}
#     . "$(dirname "$0")/lib.sh"
# The unit scripts test-units-*.sh source it too (as ../root/lib.sh) for test_dirs and the
# test lines (they run as any user: they call neither require nor in_private_namespaces).
# It sets $src (DEVMAN_SOURCE_ROOT or the checkout this file is in) and gives:
#   skip WHY / require root|loop-control|COMMAND...   exit 77 with the reason
#   in_private_namespaces "$@"    re-runs the script once in private mount and network namespaces
#   test_dirs NAME                $tmp (/tmp/devman-NAME.XXXXXX), $dev (made) and $run below it;
#                                 from then on everything listed here is undone on exit
#   ok / nok / check WHAT CMD... / results    the "ok - " and "FAIL - " lines and the summary
#   expect_eq WHAT GOT WANT       ok when GOT and WANT are the same text, else FAIL with both
#                                 (newlines shown as |)
#   adm ARGS...                   devmanadm on the private roots
#   start_daemon ARGS...          devmand on the private roots, stderr appended to $tmp/daemon.log;
#                                 $daemon is its PID; returns once it answers a ping (1 if never)
#   wait_ready [TRIES [SECONDS]]  pings the control socket until it answers
#   stop_daemon                   SIGTERM, waits; returns the daemon's exit status
#   stock_rules                   prints the rules dir: the distribution's if installed, else ours
#   daemon_alive / log_count RE   the daemon runs and answers / lines of the daemon log matching
#   own_loops BASE COUNT          loop devices BASE..BASE+COUNT-1 are ours: removed on exit
#   own_pid PID                   another process of ours (a monitor): killed on exit
#   remove_loop_range BUILD BASE COUNT / attach LOSETUP-ARGS (retried while a detach is lazy)
#   cleanup_hook                  a script's own undo step (detach, unmount), run after the
#                                 processes are stopped and before the loop devices go
# Cleanup kills only the PIDs the script started, and removes only its own range of loop devices.

src=${DEVMAN_SOURCE_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
pass=0; fail=0
daemon=""; own_pids=""; loop_base=""; loop_count=0; tmp=""

skip() { echo "$*: skipped"; exit 77; }
# require root | loop-control | COMMAND...: exits 77 naming the first that is missing
require() {
    for _need in "$@"; do
        case $_need in
        root) [ "$(id -u)" -eq 0 ] || skip "not root" ;;
        loop-control) [ -w /dev/loop-control ] || skip "no /dev/loop-control" ;;
        *) command -v "$_need" >/dev/null || skip "no $_need" ;;
        esac
    done
}

# exec keeps the PID: the marker tells the script running inside from a script it starts.
in_private_namespaces() {
    [ "${DEVMAN_TEST_NS_PID:-}" = "$$" ] && return 0
    command -v unshare >/dev/null || skip "no unshare"
    DEVMAN_TEST_NS_PID=$$ exec unshare --net --mount --propagation private sh "$0" "$@"
}

ok() { pass=$((pass + 1)); echo "ok - $*"; }
nok() { fail=$((fail + 1)); echo "FAIL - $*"; }
check() { _what=$1; shift; if "$@"; then ok "$_what"; else nok "$_what"; fi; }
expect_eq() {
    if [ "$2" = "$3" ]; then
        ok "$1"
    else
        nok "$1"
        echo "    want: $(echo "$3" | tr '\n' '|')"
        echo "    got:  $(echo "$2" | tr '\n' '|')"
    fi
}
results() { echo "$pass passed, $fail failed"; [ "$fail" -eq 0 ]; }

adm() { "$build/daemon/devmanadm" --dev "$dev" --run "$run" "$@"; }
# Debian's stock rules when they are installed, devman's own otherwise
stock_rules() {
    if [ -d /lib/udev/rules.d ] && [ -n "$(ls /lib/udev/rules.d)" ]; then echo /lib/udev/rules.d; else echo "$src/rules"; fi
}
log_count() { grep -c -- "$1" "$tmp/daemon.log"; }

wait_ready() {
    for _ in $(seq "${1:-200}"); do
        adm control --ping --timeout=1 2>/dev/null && return 0
        [ -n "$daemon" ] && ! kill -0 "$daemon" 2>/dev/null && return 1
        sleep "${2:-0.05}"
    done
    return 1
}
# the program itself in the background, not through a function: $! would name a subshell
start_daemon() {
    "$build/daemon/devmand" --dev "$dev" --run "$run" "$@" 2>>"$tmp/daemon.log" &
    daemon=$!
    wait_ready
}
stop_daemon() {
    kill "$daemon"
    wait "$daemon"
    _rc=$?
    daemon=""
    return $_rc
}
daemon_alive() { kill -0 "$daemon" 2>/dev/null && adm control --ping --timeout=5; }

own_loops() { loop_base=$1; loop_count=$2; }
own_pid() { own_pids="$own_pids $1"; }

# remove_loop_range BUILD BASE COUNT: removes loop devices BASE..BASE+COUNT-1 that exist,
# retrying for up to 60 s those still busy (builtins such as blkid, ours or another device
# manager's, hold a device open for a moment: LOOP_CTL_REMOVE then fails with EBUSY).
remove_loop_range() {
    _tries=0
    while :; do
        _busy=0; _i=0
        while [ $_i -lt "$3" ]; do
            if [ -e "/sys/devices/virtual/block/loop$(($2 + _i))" ]; then
                "$1/tests/loopctl" remove $(($2 + _i)) 1 2>/dev/null || _busy=$((_busy + 1))
            fi
            _i=$((_i + 1))
        done
        [ $_busy -eq 0 ] && return 0
        _tries=$((_tries + 1))
        [ $_tries -ge 300 ] && { echo "loop devices still busy after 60 s: $_busy" >&2; return 1; }
        sleep 0.2
    done
}

# losetup ARGS, retried briefly: a detach is lazy while anything still holds the device open
attach() {
    for _ in $(seq 100); do losetup "$@" 2>/dev/null && return 0; sleep 0.05; done
    losetup "$@"
}

cleanup_hook() { :; }
# The daemon goes before the loop devices: its builtins hold devices open, and a busy one
# would stay behind. A stopped daemon is continued so that it can exit.
test_cleanup() {
    for _p in $own_pids; do kill "$_p" 2>/dev/null && wait "$_p" 2>/dev/null; done
    if [ -n "$daemon" ]; then
        kill -CONT "$daemon" 2>/dev/null
        kill "$daemon" 2>/dev/null && wait "$daemon" 2>/dev/null
    fi
    cleanup_hook
    [ -n "$loop_base" ] && remove_loop_range "$build" "$loop_base" "$loop_count"
    [ -n "$tmp" ] && rm -rf "$tmp"
}
test_dirs() {
    tmp=$(mktemp -d "/tmp/devman-$1.XXXXXX") || exit 1
    dev=$tmp/dev; run=$tmp/run
    mkdir -p "$dev"
    trap test_cleanup EXIT
    trap 'exit 1' INT TERM
}
