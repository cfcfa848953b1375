module github.com/pipefs/pipefs

go 1.26

require (
	github.com/pierrec/lz4/v4 v4.1.33
	github.com/SaveTheRbtz/zstd-seekable-format-go/pkg v0.10.0 // indirect
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/hashicorp/golang-lru/v2 v2.0.7 // indirect
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/klauspost/compress v1.20.3 // indirect
	github.com/spf13/cobra v1.10.2 // indirect
	github.com/spf13/pflag v1.0.9 // indirect
	github.com/ulikunitz/xz v0.5.17 // indirect
	golang.org/x/sync v0.20.0 // indirect
)
