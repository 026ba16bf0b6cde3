#!/bin/sh
# The README's first command ends here: devmand on the live kernel with a private /dev.
# It coldplugs every device (the kernel re-sends its add events), shows the tree it made,
# then follows live events until Ctrl-C. Nothing outside the private directory is changed.
# Usage: run-live-demo.sh BUILDDIR [DIR]   (DIR defaults to a new /tmp/devman-demo.XXXXXX)
set -eu
build=${1:?build dir}
dir=${2:-$(mktemp -d /tmp/devman-demo.XXXXXX)}
mkdir -p "$dir/dev" "$dir/run"
devmand=$build/daemon/devmand
adm="$build/daemon/devmanadm --dev $dir/dev --run $dir/run"

if [ "$(id -u)" -ne 0 ]; then
    echo "devman demo: run as root (creating device nodes needs it)" >&2
    exit 1
fi
echo "devman demo: /dev root $dir/dev, run dir $dir/run"
"$devmand" --dev "$dir/dev" --run "$dir/run" --rules-dir "$(dirname "$0")/../../rules" --log-level=notice &
daemon=$!
trap 'kill $daemon 2>/dev/null; wait $daemon 2>/dev/null; echo; echo "devman demo: stopped; the tree is left in $dir"' EXIT INT TERM
for _ in $(seq 100); do [ -S "$dir/run/control" ] && break; sleep 0.05; done

start=$(date +%s%N)
$adm trigger --type=subsystems --action=add
$adm trigger --type=devices --action=add
$adm settle --timeout=60
end=$(date +%s%N)

echo "devman demo: coldplug done in $(( (end - start) / 1000000 )) ms:"
( cd "$dir/dev" && find . -mindepth 1 | sort | while read -r f; do
    if [ -L "$f" ]; then printf '  %-28s -> %s\n' "${f#./}" "$(readlink "$f")"
    elif [ -c "$f" ] || [ -b "$f" ]; then
        printf '  %-28s %s %s %s\n' "${f#./}" "$(stat -c '%A %U:%G' "$f")" \
            "$(printf '%d:%d' 0x$(stat -c %t "$f") 0x$(stat -c %T "$f"))" ""
    fi
done )
echo "devman demo: $(find "$dir/dev" -type c | wc -l) char and $(find "$dir/dev" -type b | wc -l) block nodes."
echo "devman demo: following live events (try: echo change > /sys/class/mem/null/uevent); Ctrl-C ends."
if $adm monitor --help >/dev/null 2>&1; then
    $adm monitor --udev
else
    # no monitor verb in this build: report node changes as they happen
    old=$(cd "$dir/dev" && find . -mindepth 1 | sort)
    while kill -0 $daemon 2>/dev/null; do
        sleep 1
        new=$(cd "$dir/dev" && find . -mindepth 1 | sort)
        [ "$new" = "$old" ] || { printf '%s\n' "$old" > "$dir/.old"; printf '%s\n' "$new" | diff "$dir/.old" - | sed -n 's/^> /  + /p; s/^< /  - /p'; }
        old=$new
    done
fi
