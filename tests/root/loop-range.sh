# Sourced by the root test scripts that add and remove ranges of loop devices.
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
