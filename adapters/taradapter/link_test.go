package taradapter

// The gzip adapter is linked into the tests, so that TestTarGz always runs.
import _ "github.com/pipefs/pipefs/adapters/gzipadapter"
