module queuey.invalid/queuey

go 1.22
