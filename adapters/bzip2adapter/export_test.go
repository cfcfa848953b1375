package bzip2adapter

// Open is the adapter's open function, for the fuzz target.
var Open = open
