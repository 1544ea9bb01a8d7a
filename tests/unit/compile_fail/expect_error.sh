#!/bin/sh
# expect_error.sh TEXT COMPILER ARGS...: the compile must fail, naming TEXT.
text=$1
shift
if output=$("$@" 2>&1); then
    echo "compiled, but it must not: $*"
    exit 1
fi
case $output in
    *"$text"*) exit 0 ;;
esac
echo "failed without saying \"$text\":"
echo "$output"
exit 1
