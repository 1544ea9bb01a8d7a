#!/bin/sh
# outside_module_test.sh SOURCEDIR GO: docs/go.md's "Your own module" word for word in a
# fresh directory outside the repository: go mod init, the replace directive, go mod
# tidy, go run (testdata/hello: three jobs enqueued and run against $QUEUEY_TEST_URL).
# Offline: GOPROXY=off, so nothing but the replaced module can be used.
set -eu
src=$1
go=$2
fail() { echo "FAIL: $*"; exit 1; }
[ -n "${QUEUEY_TEST_URL:-}" ] || fail "QUEUEY_TEST_URL is not set (run it under with_broker.sh)"

work=$(mktemp -d "${TMPDIR:-/tmp}/queuey-go-outside.XXXXXX")
trap 'rm -rf "$work"' EXIT
trap 'exit 1' INT TERM
export GOPROXY=off GOFLAGS=  # not the bindings suite's -mod=mod: what a user's go does

cd "$work" && mkdir hello && cd hello
set -x
"$go" mod init example.com/hello
"$go" mod edit -replace queuey.invalid/queuey="$src/bindings/go"
cp "$src/bindings/go/testdata/hello/main.go" .
"$go" mod tidy
"$go" run . "$QUEUEY_TEST_URL" >out.txt
set +x
cat out.txt
grep -q '^require queuey.invalid/queuey ' go.mod || fail "go mod tidy did not require the binding: $(cat go.mod)"
[ "$(tail -n 1 out.txt)" = "3 jobs run" ] || fail "the program did not run its 3 jobs"
echo "a module outside the repository builds and runs with the binding"
