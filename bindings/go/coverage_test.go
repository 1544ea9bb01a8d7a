package queuey_test

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// The header's public functions: QY_API, a return type, then qy_name(.
var apiDecl = regexp.MustCompile(`QY_API\s[^;(]*?\b(qy_\w+)\s*\(`)

// A call from Go: C.qy_name(, or C.qy_name used as a value (a callback).
var goCall = regexp.MustCompile(`\bC\.(qy_\w+)\s*\(`)

func headerPath() string {
	if path := os.Getenv("QUEUEY_HEADER"); path != "" {
		return path
	}
	return filepath.Join("..", "..", "include", "queuey", "queuey.h")
}

func headerFunctions(t *testing.T) []string {
	t.Helper()
	header, err := os.ReadFile(headerPath())
	if err != nil {
		t.Fatalf("reading the header: %v", err)
	}
	var names []string
	for _, m := range apiDecl.FindAllSubmatch(header, -1) {
		names = append(names, string(m[1]))
	}
	if len(names) < 50 {
		t.Fatalf("found only %d QY_API functions in %s; is the pattern still right?", len(names), headerPath())
	}
	return names
}

// wrapped is every qy_ function that the package's non-test Go sources call.
func wrapped(t *testing.T) map[string]bool {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	calls := map[string]bool{}
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		text, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range goCall.FindAllSubmatch(text, -1) {
			calls[string(m[1])] = true
		}
	}
	return calls
}

func missingWrappers(header []string, calls map[string]bool) []string {
	var missing []string
	for _, name := range header {
		if !calls[name] {
			missing = append(missing, name)
		}
	}
	sort.Strings(missing)
	return missing
}

func TestEveryPublicFunctionHasAGoWrapper(t *testing.T) {
	if missing := missingWrappers(headerFunctions(t), wrapped(t)); len(missing) > 0 {
		t.Errorf("%d public functions of queuey.h have no Go wrapper (no C.name( call): %s",
			len(missing), strings.Join(missing, ", "))
	}
}

// The check itself notices a function that nothing calls.
func TestWrapperCheckCatchesAnUnwrappedFunction(t *testing.T) {
	header := append(headerFunctions(t), "qy_not_wrapped_anywhere")
	missing := missingWrappers(header, wrapped(t))
	if len(missing) == 0 || missing[len(missing)-1] != "qy_not_wrapped_anywhere" {
		t.Errorf("missing = %v, want it to end with qy_not_wrapped_anywhere", missing)
	}
}
