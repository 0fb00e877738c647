package dev.deja.engine;

import java.util.Arrays;
import java.util.Map;

/**
 * Where the lines of a generated file come from: for each line of the file (a chart template's
 * rendered output) the line of its source (the template) it is a copy of, or none when that cannot
 * be known (a line made by template logic). A finding on a generated file names the source line, or
 * the file without a line: never a line of the generated text the user cannot see.
 */
public final class LineMap {
    private final int[] source;

    /** {@code source[i]}: the source line of line {@code i + 1}, 0 when unknown. */
    public LineMap(int[] source) {
        this.source = source.clone();
    }

    /** The source line of a line of the generated file, or null. */
    public Integer sourceLine(int line) {
        if (line < 1 || line > source.length || source[line - 1] <= 0) {
            return null;
        }
        return source[line - 1];
    }

    /** How many lines have a known source line (for tests and notes). */
    public long known() {
        return Arrays.stream(source).filter(l -> l > 0).count();
    }

    /** The generated files of a scan by name ({@link Location#file()}), as a snapshot part. */
    public record Files(Map<String, LineMap> byFile) {
        public Files {
            byFile = Map.copyOf(byFile);
        }

        /**
         * The location with its line mapped to the source line (or none) when its file is
         * generated; a line inside a ConfigMap key ({@code file#key:line}) is not the file's.
         */
        public Location map(Location l) {
            if (l == null || l.file() == null || l.key() != null) {
                return l;
            }
            LineMap m = byFile.get(l.file());
            if (m == null || l.line() == null) {
                return l;
            }
            return l.withFile(l.file(), m.sourceLine(l.line()));
        }
    }
}
