package dev.deja.model.haproxy;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.TreeSet;

/**
 * Paths through undecided {@code .if} blocks: one choice per block (one of its undecided branches,
 * or none of them). Settings are resolved on every path, so a rule sees each configuration HAProxy
 * could end up with.
 */
public final class Paths {
    /**
     * More paths than this and the blocks are analysed together (every branch kept), with a note.
     */
    public static final int MAX_PATHS = 64;

    private Paths() {}

    /**
     * One path: for each block in {@code blocks}, the choice in {@code choices}; {@code
     * description} null = every path.
     */
    @SuppressWarnings(
            "ArrayRecordComponent") // never compared or hashed: ALL is matched by identity
    public record Path(int[] blocks, int[] choices, String description) {
        public static final Path ALL = new Path(new int[0], new int[0], null);

        /** Whether something under this guard is read on this path. */
        public boolean applies(Guard g) {
            if (g == null) {
                return true;
            }
            for (int i = 0; i < g.size(); i++) {
                for (int k = 0; k < blocks.length; k++) {
                    if (blocks[k] == g.block(i) && choices[k] != g.branch(i)) {
                        return false;
                    }
                }
            }
            return true;
        }

        public boolean applies(Directive d) {
            return d != null && applies(d.guard());
        }
    }

    /**
     * Every path through the blocks named by these guards (nulls ignored); {@link Path#ALL} when
     * there are none.
     */
    public static List<Path> of(HaproxyConfig config, Collection<Guard> guards) {
        TreeSet<Integer> ids = new TreeSet<>();
        for (Guard g : guards) {
            if (g != null) {
                for (int i = 0; i < g.size(); i++) {
                    ids.add(g.block(i));
                }
            }
        }
        if (ids.isEmpty()) {
            return List.of(Path.ALL);
        }
        int[] blocks = ids.stream().mapToInt(Integer::intValue).toArray();
        long total = 1;
        for (int b : blocks) {
            total *= config.undecided().get(b).choices();
            if (total > MAX_PATHS) {
                return List.of(Path.ALL);
            }
        }
        List<Path> out = new ArrayList<>();
        int[] c = new int[blocks.length];
        while (true) {
            StringBuilder d = new StringBuilder();
            for (int k = 0; k < blocks.length; k++) {
                if (k > 0) {
                    d.append("; ");
                }
                d.append(config.undecided().get(blocks[k]).describe(c[k]));
            }
            out.add(new Path(blocks, c.clone(), d.toString()));
            int k = blocks.length - 1;
            while (k >= 0 && ++c[k] == config.undecided().get(blocks[k]).choices()) {
                c[k] = 0;
                k--;
            }
            if (k < 0) {
                return out;
            }
        }
    }
}
