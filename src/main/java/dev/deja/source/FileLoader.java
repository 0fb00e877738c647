package dev.deja.source;

import dev.deja.engine.SnapshotBuilder;
import dev.deja.engine.SourceFile;
import java.util.List;

/**
 * Reads the files of one kind into the snapshot. Implementations are instantiated by class name
 * (see {@link FileKind}) only when files of their kind were given, so a HAProxy-only scan never
 * loads Kubernetes or AWS classes. Parse errors are {@link dev.deja.engine.InputException}s naming
 * file:line.
 */
public interface FileLoader {
    /** All files of this loader's kind, in the order given (folders expanded in C-locale order). */
    void load(List<SourceFile> files, ScanRequest request, SnapshotBuilder out);
}
