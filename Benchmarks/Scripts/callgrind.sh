# Shared by instructions.sh and check-instructions.sh (sourced, not run): builds the profile
# program and counts its instructions per operation under valgrind's callgrind.
#
# Instructions per operation come from two runs (N and 2N operations): the difference divided
# by N leaves out start-up. SWIFT_DETERMINISTIC_HASHING=1 fixes the hash seed, so dictionaries
# probe the same way in every run and the counts repeat exactly.

if ! command -v valgrind > /dev/null; then
    echo "error: valgrind is not installed; install it with: sudo apt-get update && sudo apt-get install -y valgrind" >&2
    exit 1
fi

# The build measured: release unless the sourcing script sets PROFILE_CONFIGURATION=debug.
PROFILE_CONFIGURATION="${PROFILE_CONFIGURATION:-release}"
BUILD_LOG="$(mktemp)"
if ! swift build -c "$PROFILE_CONFIGURATION" --product appstatekit-profile > "$BUILD_LOG" 2>&1; then
    cat "$BUILD_LOG" >&2
    rm -f "$BUILD_LOG"
    exit 1
fi
rm -f "$BUILD_LOG"
PROFILE="$(swift build -c "$PROFILE_CONFIGURATION" --show-bin-path)/appstatekit-profile"

# Records callgrind's output of `operation count` for count N and 2N, in DIRECTORY/OPERATION-N
# and DIRECTORY/OPERATION-2N, with the given extra valgrind options.
record_runs() {
    local operation="$1" n="$2" directory="$3"
    shift 3
    for count in "$n" $((2 * n)); do
        SWIFT_DETERMINISTIC_HASHING=1 valgrind --tool=callgrind "$@" \
            --callgrind-out-file="$directory/$operation-$count" "$PROFILE" "$operation" "$count" > /dev/null 2>&1
    done
}

# How many operations a run repeats: persisted writes fsync (milliseconds each on this VM) and
# cost tens of thousands of instructions, so fewer of them give as exact a figure in less time.
# INSTRUCTIONS_N scales the default for everything else.
iterations() {
    case "$1" in
        stored-write | file-write) echo 20 ;;
        create | request-keep | request-remove) echo $((${INSTRUCTIONS_N:-20000} / 2)) ;;
        *) echo "${INSTRUCTIONS_N:-20000}" ;;
    esac
}

# Instructions of one run of `operation count`.
collected() {
    SWIFT_DETERMINISTIC_HASHING=1 valgrind --tool=callgrind --callgrind-out-file=/dev/null "$PROFILE" "$1" "$2" 2>&1 \
        | awk '/Collected/ {gsub(",", "", $4); print $4}'
}

# Instructions per operation, rounded to the nearest whole instruction.
instructions_per_op() {
    local n once twice
    n=$(iterations "$1")
    once=$(collected "$1" "$n")
    twice=$(collected "$1" $((2 * n)))
    if [ -z "$once" ] || [ -z "$twice" ]; then
        echo "error: callgrind reported no instruction count for $1" >&2
        exit 1
    fi
    echo $(((twice - once + n / 2) / n))
}
