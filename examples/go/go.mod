module queuey.invalid/examples

go 1.22

require queuey.invalid/queuey v0.0.0

// The binding from this source tree; it builds against libqueuey through pkg-config.
replace queuey.invalid/queuey => ../../bindings/go
