package dev.deja.source;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;

/** Programs found on a PATH (helm, kubectl, bwrap). */
public final class Executables {
    private Executables() {}

    /**
     * The first executable regular file named {@code program} in the folders of {@code path} (a
     * PATH value); null when there is none or {@code path} is null.
     */
    public static Path onPath(String program, String path) {
        if (path == null) {
            return null;
        }
        for (String dir : path.split(File.pathSeparator)) {
            if (dir.isEmpty()) {
                continue;
            }
            Path c = Path.of(dir, program);
            if (Files.isRegularFile(c) && Files.isExecutable(c)) {
                return c;
            }
        }
        return null;
    }
}
