// Package all registers every scheme that pipefs implements. Importing it,
//
//	import _ "github.com/pipefs/pipefs/all"
//
// registers what package pipefs registers (the local roots "file:" and
// "memory:" and every adapter) and the remote roots: "http:" and "https:"
// (roots/httproot), "s3:", "s3+http:" and "s3+https:" (roots/s3root, on
// the AWS SDK) and "gs:" (roots/gsroot, on the Google Cloud Storage
// client). A program pays for those clients in binary size and start-up
// time; one that needs only some remote roots imports just their packages
// beside package pipefs. The package has no API of its own.
package all

import (
	_ "github.com/pipefs/pipefs" // the local roots and every adapter
	_ "github.com/pipefs/pipefs/roots/gsroot"
	_ "github.com/pipefs/pipefs/roots/httproot"
	_ "github.com/pipefs/pipefs/roots/s3root"
)
