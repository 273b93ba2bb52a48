#!/usr/bin/env bash
# Guards the speed of the hot operations: measures every operation in Baselines/instructions.txt
# (instructions per operation, see callgrind.sh), prints baseline, now and their ratio, and exits
# non-zero when any operation costs more than 10% above its baseline. An operation more than 10%
# cheaper is reported with a suggestion to regenerate the baseline, without failing.
#
# Usage: Benchmarks/Scripts/check-instructions.sh                    check against the baseline
#        Benchmarks/Scripts/check-instructions.sh --write-baseline   measure every operation and
#                                                                    write the baseline
# The figures depend on the machine and the toolchain: regenerate them when either changes.
set -euo pipefail
cd "$(dirname "$0")/.."
BASELINE=Baselines/instructions.txt
TOLERANCE=10 # percent

case "${1:-}" in
    "") mode=check ;;
    --write-baseline) mode=write ;;
    *) echo "usage: $0 [--write-baseline]" >&2; exit 2 ;;
esac

source Scripts/callgrind.sh
toolchain="$(swift --version 2>/dev/null | grep -o 'Swift version [^ ]*' | head -1), $(uname -m)"

if [ "$mode" = write ]; then
    mapfile -t operations < <("$PROFILE" --list)
    {
        echo "# Instructions per operation of appstatekit-profile (valgrind callgrind), checked by"
        echo "# Benchmarks/Scripts/check-instructions.sh; regenerate with its --write-baseline."
        echo "# Measured with: $toolchain"
        for operation in "${operations[@]}"; do
            printf '%-18s %d\n' "$operation" "$(instructions_per_op "$operation")"
        done
    } > "$BASELINE.new"
    mv "$BASELINE.new" "$BASELINE"
    echo "wrote Benchmarks/$BASELINE:"
    cat "$BASELINE"
    exit 0
fi

[ -f "$BASELINE" ] || { echo "error: no baseline at Benchmarks/$BASELINE; create it with $0 --write-baseline" >&2; exit 1; }
measured_with="$(sed -n 's/^# Measured with: //p' "$BASELINE")"
if [ "$measured_with" != "$toolchain" ]; then
    echo "warning: the baseline was measured with '$measured_with', this is '$toolchain';" \
        "instruction counts differ between toolchains and machines, regenerate the baseline with $0 --write-baseline" >&2
fi

failed=()
improved=()
printf '%-18s %10s %10s %7s\n' operation baseline now ratio
while read -r operation baseline; do
    if ! "$PROFILE" --list | grep -qx "$operation"; then
        echo "error: '$operation' is in the baseline but not an operation of appstatekit-profile" >&2
        exit 1
    fi
    now=$(instructions_per_op "$operation")
    ratio=$(awk -v now="$now" -v base="$baseline" 'BEGIN { printf "%.3f", now / base }')
    verdict=""
    if [ $((now * 100)) -gt $((baseline * (100 + TOLERANCE))) ]; then
        verdict="  REGRESSION (> +$TOLERANCE%)"
        failed+=("$operation")
    elif [ $((now * 100)) -lt $((baseline * (100 - TOLERANCE))) ]; then
        verdict="  improved (> -$TOLERANCE%)"
        improved+=("$operation")
    fi
    printf '%-18s %10d %10d %7s%s\n' "$operation" "$baseline" "$now" "$ratio" "$verdict"
done < <(grep -v '^#' "$BASELINE" | grep -v '^[[:space:]]*$')

unguarded=$(comm -23 <("$PROFILE" --list | sort) <(grep -v '^#' "$BASELINE" | awk 'NF { print $1 }' | sort))
if [ -n "$unguarded" ]; then
    echo "note: not in the baseline, so not guarded:" $unguarded "— add them with $0 --write-baseline"
fi
if [ ${#improved[@]} -gt 0 ]; then
    echo "note: ${improved[*]} got more than $TOLERANCE% cheaper; regenerate the baseline ($0 --write-baseline) so the guard holds the gain"
fi
if [ ${#failed[@]} -gt 0 ]; then
    echo "error: instructions per operation regressed by more than $TOLERANCE% for: ${failed[*]}" >&2
    echo "If the slowdown is intended, regenerate the baseline with $0 --write-baseline and commit it, saying why." >&2
    exit 1
fi
echo "instruction counts within +$TOLERANCE% of the baseline"
