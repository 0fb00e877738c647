package dev.deja.model.haproxy;

import java.util.Arrays;

/**
 * The undecided {@code .if} branches a directive or section sits in: for each enclosing undecided
 * block (by its index in {@link HaproxyConfig#undecided()}), the branch it is in. A directive
 * applies on a path (one choice of branch per block) when the path chose its branch in every one of
 * its blocks.
 */
public final class Guard {
    private final int[] blocks;
    private final int[] branches;

    Guard(int[] blocks, int[] branches) {
        this.blocks = blocks;
        this.branches = branches;
    }

    public int size() {
        return blocks.length;
    }

    public int block(int i) {
        return blocks[i];
    }

    public int branch(int i) {
        return branches[i];
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Guard g
                && Arrays.equals(blocks, g.blocks)
                && Arrays.equals(branches, g.branches);
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(blocks) + Arrays.hashCode(branches);
    }
}
