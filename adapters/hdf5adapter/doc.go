// Package hdf5adapter implements the hdf5: adapter: an HDF5 file as a tree
// whose directories are its groups and whose files are its datasets, read
// through io.ReaderAt without reading more of the file than a listing or a
// read needs.
package hdf5adapter
