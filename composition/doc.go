// Package composition holds only tests: the versioned stores (ocdbt:,
// icechunk:) and the array formats (zarr2:, zarr3:, n5:) read over the
// http: root and from copies nested in other containers (a zip inside a
// zip, a tar, a tar.gz), checked against the expected results of the
// format guides beside the shared fixtures; and hdf5: compared with h5py
// on fixtures and on HDF5 files other projects wrote (hdf5_test.go). Each
// adapter's own tests stay in its package; these are the tests of
// everything composed with everything.
package composition
