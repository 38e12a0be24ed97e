module github.com/cogloop/cogloop

go 1.26.8

require (
	github.com/dlclark/regexp2 v1.12.0
	github.com/dustin/go-humanize v1.0.1
	github.com/mattn/go-runewidth v0.0.31
	github.com/nikolalohinski/gonja/v2 v2.9.1
	github.com/redis/go-redis/v9 v9.23.0
	github.com/sirupsen/logrus v1.9.3
	github.com/stretchr/testify v1.12.1
	github.com/tmc/langchaingo v0.1.14
	go.yaml.in/yaml/v3 v3.0.6
	golang.org/x/net v0.43.0
	golang.org/x/sync v0.24.0
	golang.org/x/term v0.47.0
)

require (
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/clipperhouse/uax29/v2 v2.2.0 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/json-iterator/go v1.1.12 // indirect
	github.com/modern-go/concurrent v0.0.0-20180306012644-bacd9c7ef1dd // indirect
	github.com/modern-go/reflect2 v1.0.2 // indirect
	github.com/pkg/errors v0.9.1 // indirect
	github.com/pkoukk/tiktoken-go v0.1.6 // indirect
	go.uber.org/atomic v1.12.0 // indirect
	golang.org/x/exp v0.0.0-20240808152545-0cdaa3abc0fa // indirect
	golang.org/x/sys v0.49.0 // indirect
	golang.org/x/text v0.28.0 // indirect
)
