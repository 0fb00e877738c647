package dev.deja.model.haproxy;

import java.util.List;

/**
 * An {@code .if} block with branches deja could not decide. {@code branches} describes each
 * undecided branch (".if defined(X) (a.cfg:3)", ".else (a.cfg:5, ...)"); {@code noneTaken} says
 * whether a path may also take none of them (no {@code .else}, or only undecided conditions).
 */
public record UndecidedBlock(int id, String where, List<String> branches, boolean noneTaken) {
    public UndecidedBlock {
        branches = List.copyOf(branches);
    }

    /** Number of choices a path has here. */
    public int choices() {
        return branches.size() + (noneTaken ? 1 : 0);
    }

    /** Describes choice {@code c}: a branch, or none of them. */
    public String describe(int c) {
        if (c < branches.size()) {
            return branches.get(c) + " is taken";
        }
        return "no branch of the .if at " + where + " is taken";
    }
}
