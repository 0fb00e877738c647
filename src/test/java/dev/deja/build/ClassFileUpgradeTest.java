package dev.deja.build;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.Opcodes;

/**
 * The build step that rewrites picocli's Java 5 class files as Java 8 ones (so the AppCDS archive
 * can hold them): checked on picocli's own jar, the one the build read.
 */
class ClassFileUpgradeTest {
    private static Path jar;
    private static Map<String, byte[]> original;

    @BeforeAll
    static void readPicocli() throws IOException {
        jar = ClassFileUpgrade.jarOf("picocli.CommandLine");
        original = new HashMap<>();
        try (JarFile j = new JarFile(jar.toFile())) {
            for (JarEntry e : j.stream().toList()) {
                if (e.getName().endsWith(".class") && !e.getName().contains("-info")) {
                    try (InputStream in = j.getInputStream(e)) {
                        original.put(e.getName(), in.readAllBytes());
                    }
                }
            }
        }
    }

    private static int major(byte[] classFile) {
        return new ClassReader(classFile).readUnsignedShort(6);
    }

    @Test
    void picocliShipsJava5ClassFilesAndTheBuildPutJava8OnesInTheClassesFolder() throws IOException {
        assertTrue(original.size() > 200, jar + ": " + original.size() + " classes");
        assertEquals(
                49,
                major(original.get("picocli/CommandLine.class")),
                "picocli's jar is Java 5: when a picocli release ships Java 8 class files, the"
                        + " build step can go");
        for (String name : original.keySet()) {
            Path built = Path.of("target/classes").resolve(name);
            assertTrue(Files.isRegularFile(built), "the build wrote " + built);
            assertEquals(52, major(Files.readAllBytes(built)), built.toString());
        }
    }

    /**
     * Every upgraded class passes the JVM's type-checking verifier (the one for class files of
     * version 50 and later): a stack map frame that did not match the code is a VerifyError here.
     */
    @Test
    void everyUpgradedClassLoadsAndVerifies() throws Exception {
        Map<String, byte[]> upgraded = new HashMap<>();
        try (var loader =
                new java.net.URLClassLoader(
                        new java.net.URL[] {jar.toUri().toURL()},
                        ClassLoader.getPlatformClassLoader())) {
            for (var e : original.entrySet()) {
                upgraded.put(e.getKey(), ClassFileUpgrade.upgrade(e.getValue(), loader));
            }
        }
        Fresh fresh = new Fresh(upgraded);
        int loaded = 0;
        for (String name : upgraded.keySet()) {
            Class<?> c = Class.forName(name.replace('/', '.').replace(".class", ""), true, fresh);
            assertSame(fresh, c.getClassLoader(), name);
            loaded++;
        }
        assertEquals(original.size(), loaded);
    }

    /** The control: version 52 without frames does not verify, so the test above can fail. */
    @Test
    void java8ClassFilesWithoutFramesAreRefusedByTheVerifier() {
        String name = "picocli/CommandLine$Range.class";
        ClassReader r = new ClassReader(original.get(name));
        ClassWriter w = new ClassWriter(0);
        r.accept(
                new ClassVisitor(Opcodes.ASM9, w) {
                    @Override
                    public void visit(
                            int version, int access, String n, String s, String sup, String[] i) {
                        super.visit(Opcodes.V1_8, access, n, s, sup, i);
                    }
                },
                0);
        Fresh fresh = new Fresh(Map.of(name, w.toByteArray()));
        assertThrows(
                VerifyError.class, () -> Class.forName("picocli.CommandLine$Range", true, fresh));
    }

    @Test
    void aClassFileAlreadyAtJava8OrLaterIsKeptAsItIs() throws IOException {
        byte[] own;
        try (InputStream in =
                ClassFileUpgrade.class.getResourceAsStream("ClassFileUpgrade.class")) {
            own = in.readAllBytes();
        }
        assertFalse(major(own) < 52);
        assertSame(own, ClassFileUpgrade.upgrade(own, ClassLoader.getPlatformClassLoader()));
    }

    /** Defines the given class files itself; everything else comes from the platform. */
    private static final class Fresh extends ClassLoader {
        private final Map<String, byte[]> files;

        Fresh(Map<String, byte[]> files) {
            super(ClassLoader.getPlatformClassLoader());
            this.files = files;
        }

        @Override
        protected Class<?> findClass(String name) throws ClassNotFoundException {
            byte[] b = files.get(name.replace('.', '/') + ".class");
            if (b == null) {
                throw new ClassNotFoundException(name);
            }
            return defineClass(name, b, 0, b.length);
        }
    }
}
