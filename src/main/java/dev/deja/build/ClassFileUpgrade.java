package dev.deja.build;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.JarURLConnection;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Enumeration;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.Opcodes;

/**
 * Build step (Maven {@code process-classes}, before the shade): writes the classes of the jar that
 * holds a given class into the classes folder as Java 8 class files (major version 52), with the
 * stack map frames Java 8 class files carry, computed by ASM. The shade then takes them from the
 * classes folder instead of the dependency's jar.
 *
 * <p>Why: picocli 4.7 is compiled for Java 5 (class file version 49), and HotSpot's class-data
 * sharing does not archive a class older than Java 6 ("Pre JDK 6 class not supported by CDS",
 * {@code SystemDictionaryShared::check_for_exclusion} in JDK 17). So every {@code deja} run loaded
 * picocli's ~170 classes from the 88 MB jar and checked each with the old type-inferring verifier,
 * while the rest of the start-up came from the launcher's AppCDS archive. As version 52 classes
 * they are archived like the others. Only the version and the frames change; the instructions,
 * constants and attributes are copied as they are. A frame that did not fit the code would be a
 * {@code VerifyError} when the class loads, and every picocli class deja uses loads in the tests.
 *
 * <p>Usage: {@code ClassFileUpgrade <class in the jar, e.g. picocli.CommandLine> <classes folder>}.
 */
public final class ClassFileUpgrade {
    /**
     * The version written: Java 8, the oldest that CDS archives and that needs stack map frames.
     */
    static final int TARGET = Opcodes.V1_8;

    private ClassFileUpgrade() {}

    public static void main(String[] args) throws IOException {
        if (args.length != 2) {
            throw new IllegalArgumentException(
                    "usage: ClassFileUpgrade <class in the jar> <classes folder>");
        }
        Path jar = jarOf(args[0]);
        int n = upgrade(jar, Path.of(args[1]));
        System.out.println(
                "ClassFileUpgrade: " + n + " classes of " + jar.getFileName() + " as Java 8");
    }

    /**
     * The jar the class comes from on this class loader's path (a copy in the classes folder from
     * an earlier build is passed over).
     */
    static Path jarOf(String className) throws IOException {
        String res = className.replace('.', '/') + ".class";
        Enumeration<URL> urls = ClassFileUpgrade.class.getClassLoader().getResources(res);
        while (urls.hasMoreElements()) {
            URL u = urls.nextElement();
            if ("jar".equals(u.getProtocol())) {
                JarURLConnection c = (JarURLConnection) u.openConnection();
                c.setUseCaches(false);
                try {
                    return Path.of(c.getJarFileURL().toURI());
                } catch (URISyntaxException e) {
                    throw new IOException(e);
                }
            }
        }
        throw new IOException("no jar on the class path holds " + res);
    }

    /** Writes every class of {@code jar} under {@code out}; returns how many. */
    static int upgrade(Path jar, Path out) throws IOException {
        int n = 0;
        try (JarFile j = new JarFile(jar.toFile());
                URLClassLoader loader =
                        new URLClassLoader(
                                new URL[] {jar.toUri().toURL()},
                                ClassLoader.getPlatformClassLoader())) {
            for (JarEntry e : j.stream().toList()) {
                String name = e.getName();
                if (!name.endsWith(".class") || name.contains("-info.class")) {
                    continue; // module-info and package-info are not loaded as classes
                }
                byte[] b;
                try (InputStream in = j.getInputStream(e)) {
                    b = in.readAllBytes();
                }
                Path target = out.resolve(name);
                Files.createDirectories(target.getParent());
                Files.write(target, upgrade(b, loader));
                n++;
            }
        }
        return n;
    }

    /**
     * The class as a version-52 class file; a class already at 52 or above comes back unchanged.
     */
    static byte[] upgrade(byte[] classFile, ClassLoader loader) {
        ClassReader r = new ClassReader(classFile);
        int major = r.readUnsignedShort(6);
        if (major >= TARGET) {
            return classFile;
        }
        ClassWriter w =
                new ClassWriter(ClassWriter.COMPUTE_FRAMES) {
                    // ASM merges two reference types by loading them: from the jar itself, then
                    // the JDK
                    @Override
                    protected ClassLoader getClassLoader() {
                        return loader;
                    }
                };
        try {
            r.accept(
                    new ClassVisitor(Opcodes.ASM9, w) {
                        @Override
                        public void visit(
                                int version,
                                int access,
                                String name,
                                String signature,
                                String superName,
                                String[] interfaces) {
                            super.visit(TARGET, access, name, signature, superName, interfaces);
                        }
                    },
                    0);
            return w.toByteArray();
        } catch (TypeNotPresentException e) {
            throw new UncheckedIOException(
                    new IOException(
                            r.getClassName() + ": a type its frames need is not found: " + e));
        }
    }
}
