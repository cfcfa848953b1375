package vfs

// SizeKnown reports whether Size answers without decoding a stream to its
// end: the FileInfo of a File or FS keeps the driver's
// driver.SizeKnower visible.
func (fi *fileInfo) SizeKnown() bool { return sizeKnown(fi.FileInfo) }
