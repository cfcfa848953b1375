package precomputedadapter

import "math/bits"

// mortonBits returns, for a chunk grid of grid[i] cells along x, y and z,
// the number of bits of each coordinate that the compressed Morton code
// keeps: the bit length of grid[i]-1.
func mortonBits(grid [3]int64) [3]int {
	var nb [3]int
	for i, g := range grid {
		nb[i] = bits.Len64(uint64(max(g-1, 0)))
	}
	return nb
}

// compressedMorton returns the compressed Morton code of the grid cell g
// ([x, y, z]): bit i of each coordinate, for i from 0, x before y before
// z, skipping the bits beyond nb of a coordinate. The bits of nb add up
// to at most 64 (see mortonBits and the scale's checks).
func compressedMorton(g [3]int64, nb [3]int) uint64 {
	var z uint64
	j := 0
	for i := 0; i < max(nb[0], nb[1], nb[2]); i++ {
		for d := 0; d < 3; d++ {
			if i < nb[d] {
				z |= (uint64(g[d]) >> i & 1) << j
				j++
			}
		}
	}
	return z
}
