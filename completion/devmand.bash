# bash completion for devmand                                      -*- shell-script -*-
# SPDX-License-Identifier: MIT
#
# Self-contained, like devmanadm's: words come from COMP_LINE split at blanks, and replies are
# trimmed back to the text after the last COMP_WORDBREAKS character ('=', ':') that readline
# replaces.

_devmand_trim_breaks()
{
    local cur=$1 ch i cut=0
    for ((i = 0; i < ${#cur}; i++)); do
        ch=${cur:i:1}
        if [[ $ch != [[:space:]\"\'] && $COMP_WORDBREAKS == *"$ch"* ]]; then
            cut=$((i + 1))
        fi
    done
    ((cut)) || return 0
    for i in "${!COMPREPLY[@]}"; do
        COMPREPLY[i]=${COMPREPLY[i]:cut}
    done
}

# Adds the words of list $2 that start with $1, each prefixed with $3.
_devmand_add_words()
{
    local w matches
    mapfile -t matches < <(compgen -W "$2" -- "$1")
    for w in "${matches[@]}"; do
        COMPREPLY+=("${3-}$w")
    done
}

# Adds files (or with $3 = dirs, only directories) whose path starts with $1, each prefixed with
# $2; directories end in '/'.
_devmand_add_paths()
{
    local p matches
    mapfile -t matches < <(compgen -f -- "$1")
    for p in "${matches[@]}"; do
        if [[ -d $p ]]; then
            COMPREPLY+=("${2-}$p/")
        elif [[ ${3-} != dirs ]]; then
            COMPREPLY+=("${2-}$p")
        fi
    done
}

# Adds the values of option $1 that start with $2, each prefixed with $3.
_devmand_add_value()
{
    case $1 in
    --sysfs | --dev | --run | --rules-dir)
        _devmand_add_paths "$2" "$3" dirs ;;
    --config)
        _devmand_add_paths "$2" "$3" ;;
    --resolve-names)
        _devmand_add_words "$2" "early late never" "$3" ;;
    --log-target)
        _devmand_add_words "$2" "console kmsg syslog auto" "$3" ;;
    --log-level)
        _devmand_add_words "$2" "emerg alert crit err warning notice info debug" "$3" ;;
    --timeout-signal)
        _devmand_add_words "$2" "$(compgen -A signal)" "$3" ;;
    esac
    # --children-max, --exec-delay, --event-timeout and --ready-fd take numbers: nothing to offer.
}

_devmand()
{
    local options="--daemon --debug --once --sysfs --dev --run --rules-dir --config --children-max"
    options+=" --exec-delay --event-timeout --timeout-signal --resolve-names= --log-target= --log-level"
    options+=" --ready-fd --help --version"
    local with_value=" --sysfs --dev --run --rules-dir --config --children-max --exec-delay"
    with_value+=" --event-timeout --timeout-signal --resolve-names --log-target --log-level --ready-fd "
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
        _devmand_add_words "$cur" "$options" ""
    fi

    _devmand_trim_breaks "$cur"
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
