# bash completion for devmand                                      -*- shell-script -*-
# SPDX-License-Identifier: MIT
#
# Like devmanadm's: words come from COMP_LINE split at blanks, and replies are trimmed back to
# the text after the last COMP_WORDBREAKS character ('=', ':') that readline replaces.

# The helpers (_devman_*) are devmanadm's, whose completion is installed beside this one (as
# "devmanadm"; devmanadm.bash in the source tree).
if ! declare -F _devman_add_words >/dev/null; then
    for _devmand_f in "${BASH_SOURCE[0]%/*}/devmanadm" "${BASH_SOURCE[0]%/*}/devmanadm.bash"; do
        # shellcheck source=/dev/null
        [[ -r $_devmand_f ]] && . "$_devmand_f" && break
    done
    unset _devmand_f
fi

# Adds the values of option $1 that start with $2, each prefixed with $3.
_devmand_add_value()
{
    case $1 in
    --sysfs | --dev | --run | --rules-dir)
        _devman_add_paths "$2" dirs "$3" ;;
    --config | --mdev-conf | --uevent-socket)
        _devman_add_paths "$2" "" "$3" ;;
    --resolve-names)
        _devman_add_words "$2" "early late never" "$3" ;;
    --log-target)
        _devman_add_words "$2" "console kmsg syslog auto" "$3" ;;
    --log-level)
        _devman_add_words "$2" "emerg alert crit err warning notice info debug" "$3" ;;
    --timeout-signal)
        _devman_add_words "$2" "$(compgen -A signal)" "$3" ;;
    esac
    # --children-max, --exec-delay, --event-timeout, --ready-fd, --receive-buffer and
    # --sched-slice take numbers: nothing to offer.
}

_devmand()
{
    local options="--daemon --debug --once --sysfs --dev --run --rules-dir --config --children-max"
    options+=" --exec-delay --event-timeout --timeout-signal --resolve-names= --log-target= --log-level"
    options+=" --ready-fd --mdev-conf --receive-buffer --sched-slice --uevent-socket --help --version"
    local with_value=" --sysfs --dev --run --rules-dir --config --children-max --exec-delay"
    with_value+=" --event-timeout --timeout-signal --resolve-names --log-target --log-level --ready-fd"
    with_value+=" --mdev-conf --receive-buffer --sched-slice --uevent-socket "
    local line=${COMP_LINE:0:COMP_POINT}
    local -a words
    read -r -a words <<<"$line"
    [[ -z $line || $line == *[[:space:]] ]] && words+=("")
    local cur=${words[-1]} prev=''
    ((${#words[@]} > 1)) && prev=${words[-2]}

    COMPREPLY=()
    if [[ $with_value == *" $prev "* ]]; then
        _devmand_add_value "$prev" "$cur" ""
    elif [[ $cur == --*=* ]]; then
        _devmand_add_value "${cur%%=*}" "${cur#*=}" "${cur%%=*}="
    else
        _devman_add_words "$cur" "$options" ""
    fi

    _devman_trim_breaks "$cur"
    local r
    for r in "${COMPREPLY[@]}"; do
        if [[ $r == */ || $r == *= ]]; then
            compopt -o nospace 2>/dev/null
            break
        fi
    done
    return 0
}

complete -F _devmand devmand
