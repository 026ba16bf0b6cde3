# bash completion for devmanadm                                    -*- shell-script -*-
# SPDX-License-Identifier: MIT
#
# Self-contained (needs no bash-completion helpers). Words are taken from COMP_LINE, split at
# blanks, rather than from COMP_WORDS: bash splits COMP_WORDS at every COMP_WORDBREAKS character,
# and both '=' (--action=add) and ':' (sysfs paths like pci0000:00) are among them. Replies are
# built for the whole word and trimmed back to what readline replaces (_devman_trim_breaks).
# devmand's completion uses the _devman_* helpers of this file.

# Trims each reply by the part of word $1 up to its last COMP_WORDBREAKS character: readline
# only replaces the text after it.
_devman_trim_breaks()
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
_devman_add_words()
{
    local w matches
    mapfile -t matches < <(compgen -W "$2" -- "$1")
    for w in "${matches[@]}"; do
        COMPREPLY+=("${3-}$w")
    done
}

# Adds files (or with $2 = dirs, only directories) whose path starts with $1, each prefixed with
# $3; directories end in '/'.
_devman_add_paths()
{
    local p matches
    mapfile -t matches < <(compgen -f -- "$1")
    for p in "${matches[@]}"; do
        if [[ -d $p ]]; then
            COMPREPLY+=("${3-}$p/")
        elif [[ ${2-} != dirs ]]; then
            COMPREPLY+=("${3-}$p")
        fi
    done
}

# Adds the entries of the device directory $1 that start with $2, relative to $1 ("sda",
# "disk/by-id/"), each prefixed with $3.
_devman_add_dev_names()
{
    local dev=$1 p matches
    mapfile -t matches < <(compgen -f -- "$dev/$2")
    for p in "${matches[@]}"; do
        [[ -d $p ]] && p+=/
        COMPREPLY+=("${3-}${p#"$dev"/}")
    done
}

# Subsystem names known to the sysfs tree $1.
_devman_subsystems()
{
    local d
    for d in "$1"/bus/* "$1"/class/*; do
        [[ -e $d ]] && printf '%s\n' "${d##*/}"
    done | sort -u
}

# Tags in the udev database under run directory $1.
_devman_tags()
{
    local d
    for d in "$1"/tags/*; do
        [[ -d $d ]] && printf '%s\n' "${d##*/}"
    done
}

# A device argument: a path under /dev or /sys, or a name relative to the device directory.
_devmanadm_add_device()
{
    local cur=$1 dev=$2 sysfs=$3
    if [[ -z $cur ]]; then
        COMPREPLY+=("$dev/" "$sysfs/devices/" "$sysfs/class/")
    elif [[ $cur == /* || $cur == .* ]]; then
        _devman_add_paths "$cur"
    else
        _devman_add_dev_names "$dev" "$cur" ""
    fi
}

_devmanadm_verb_options()
{
    case $1 in
    trigger)
        echo "--action= --type= --subsystem-match= --subsystem-nomatch= --sysname-match="
        echo "--sysname-nomatch= --property-match= --tag-match= --parent-match= --dry-run --verbose"
        echo "--settle" ;;
    settle) echo "--timeout= --exit-if-exists= --seq-start= --seq-end= --quiet" ;;
    info) echo "--path= --name= --query= --root --export-db --cleanup-db --attribute-walk" ;;
    control)
        echo "--reload --exit --ping --log-level= --stop-exec-queue --start-exec-queue"
        echo "--property= --children-max=" ;;
    monitor) echo "--kernel --udev --property --subsystem-match= --tag-match=" ;;
    test) echo "--action= --apply --event-timeout= --timeout-signal=" ;;
    hwdb) echo "--update --test=" ;;
    snapshot) echo "-o --output= --sysfs= --rules-dir --no-rules" ;;
    compare) echo "--ignore= --verbose --rules-dir --no-rules" ;;
    classes) echo "--compare" ;;
    static-nodes) echo "--root= --kernel= --file= --dry-run" ;;
    esac
    echo "--help"
}

# Options written without '=' that still take the next word as their value.
_devmanadm_takes_value()
{
    case $1 in
    --sysfs | --dev | --run | -o | --rules-dir | --compare) return 0 ;;
    esac
    [[ " $(_devmanadm_verb_options "$2") " == *" $1= "* ]]
}

# Adds the values of option $1 that start with $2, each prefixed with $3.
_devmanadm_add_value()
{
    local opt=$1 cur=$2 keep=$3
    case $opt in
    --sysfs | --dev | --run | --rules-dir)
        _devman_add_paths "$cur" dirs ;;
    -o | --compare)
        _devman_add_paths "$cur" ;;
    --ignore)
        # compare's field names; prop: and link: take a glob
        _devman_add_words "$cur" "vanished appeared renamed duplicate layout node type devt mode owner links tags
            props kernel-props devtype driver parent prop: link:" "$keep" ;;
    --exit-if-exists | --output)
        local p n=${#COMPREPLY[@]}
        _devman_add_paths "$cur"
        for ((p = n; p < ${#COMPREPLY[@]}; p++)); do
            COMPREPLY[p]=$keep${COMPREPLY[p]}
        done ;;
    --parent-match)
        local p n=${#COMPREPLY[@]}
        _devman_add_paths "${cur:-$sysfs/}" dirs
        for ((p = n; p < ${#COMPREPLY[@]}; p++)); do
            COMPREPLY[p]=$keep${COMPREPLY[p]}
        done ;;
    --action)
        _devman_add_words "$cur" "add remove change move online offline bind unbind" "$keep" ;;
    --type)
        _devman_add_words "$cur" "devices subsystems" "$keep" ;;
    --subsystem-match | --subsystem-nomatch)
        _devman_add_words "$cur" "$(_devman_subsystems "$sysfs")" "$keep" ;;
    --tag-match)
        _devman_add_words "$cur" "$(_devman_tags "$run")" "$keep" ;;
    --query)
        _devman_add_words "$cur" "all path name symlink property" "$keep" ;;
    --log-level)
        _devman_add_words "$cur" "emerg alert crit err warning notice info debug" "$keep" ;;
    --name)
        _devman_add_dev_names "$dev" "$cur" "$keep" ;;
    --path)
        local p n=${#COMPREPLY[@]}
        _devman_add_paths "${cur:-$sysfs/}" dirs
        for ((p = n; p < ${#COMPREPLY[@]}; p++)); do
            COMPREPLY[p]=$keep${COMPREPLY[p]}
        done ;;
    esac
}

_devmanadm()
{
    local verbs="trigger settle info tree classes control monitor test test-builtin verify hwdb"
    verbs+=" static-nodes coldplug snapshot compare mdev-convert version"
    local builtins="blkid btrfs hwdb input_id keyboard kmod net_id net_setup_link path_id uaccess usb_id"
    local sysfs=/sys dev=/dev run=/run/udev
    local line=${COMP_LINE:0:COMP_POINT}
    local -a words
    read -r -a words <<<"$line"
    [[ -z $line || $line == *[[:space:]] ]] && words+=("")
    local cur=${words[-1]} prev=''
    ((${#words[@]} > 1)) && prev=${words[-2]}

    # Find the verb and the roots given before it, and count the verb's positional arguments.
    local verb='' npos=0 i w
    for ((i = 1; i < ${#words[@]} - 1; i++)); do
        w=${words[i]}
        case $w in
        --sysfs=*) sysfs=${w#*=} ;;
        --dev=*) dev=${w#*=} ;;
        --run=*) run=${w#*=} ;;
        --sysfs | --dev | --run)
            ((i + 1 < ${#words[@]} - 1)) || continue
            case $w in
            --sysfs) sysfs=${words[i + 1]} ;;
            --dev) dev=${words[i + 1]} ;;
            --run) run=${words[i + 1]} ;;
            esac
            ((i++)) ;;
        -*)
            _devmanadm_takes_value "$w" "$verb" && ((i++)) ;;
        *)
            if [[ -z $verb ]]; then verb=$w; else ((npos++)); fi ;;
        esac
    done

    COMPREPLY=()
    if [[ $prev == -* && $prev != *=* ]] && _devmanadm_takes_value "$prev" "$verb"; then
        _devmanadm_add_value "$prev" "$cur" ""
    elif [[ $cur == --*=* ]]; then
        _devmanadm_add_value "${cur%%=*}" "${cur#*=}" "${cur%%=*}="
    elif [[ $cur == -* ]]; then
        if [[ -z $verb ]]; then
            _devman_add_words "$cur" "--sysfs --dev --run --debug --help --version" ""
        else
            _devman_add_words "$cur" "$(_devmanadm_verb_options "$verb")" ""
        fi
    elif [[ -z $verb ]]; then
        _devman_add_words "$cur" "$verbs" ""
    else
        case $verb in
        info | trigger | test | tree)
            _devmanadm_add_device "$cur" "$dev" "$sysfs" ;;
        test-builtin)
            if ((npos == 0)); then
                _devman_add_words "$cur" "$builtins" ""
            else
                _devman_add_paths "${cur:-$sysfs/}" dirs
            fi ;;
        verify | compare | mdev-convert)
            _devman_add_paths "$cur" ;;
        esac
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

complete -F _devmanadm devmanadm
