import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Enumeration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipOutputStream;

/**
 * A build step (the package phase, before the shade; run as a source file by exec-maven-plugin, no
 * dependency): writes a copy of one AWS SDK service module's jar with only the classes deja's calls
 * reach, as listed in packaging/aws/SERVICE.classes (made by packaging/aws-classes.py).
 *
 * <p>Every other top-level {@code model/*Request} class becomes an empty subclass of the service's
 * base request (the "# base" line of the list), with no method: the JVM's verifier loads all of them
 * when it links the client, whose methods pass each request to code that takes an SdkRequest, and
 * nothing else touches them (an operation deja does not call fails at once on a missing method). The
 * module's other classes are left out. Its other files are kept (LICENSE, NOTICE, version), but for
 * the warm-up service file (its classes are left out) and a test-case file.
 *
 * <p>Usage: java packaging/AwsSlim.java LIST JAR OUT [LIST JAR OUT...]. Nothing is written when OUT is newer than LIST,
 * JAR and this file.
 */
public class AwsSlim {
    public static void main(String[] args) throws IOException {
        for (int i = 0; i + 2 < args.length; i += 3) {
            slim(Path.of(args[i]), Path.of(args[i + 1]), Path.of(args[i + 2]));
        }
    }

    static void slim(Path list, Path jar, Path out) throws IOException {
        Path self = Path.of("packaging/AwsSlim.java");
        if (Files.exists(out)) {
            long t = Files.getLastModifiedTime(out).toMillis();
            boolean fresh = true;
            for (Path p : List.of(list, jar, self)) {
                fresh &= !Files.exists(p) || Files.getLastModifiedTime(p).toMillis() < t;
            }
            if (fresh) {
                System.out.println("AwsSlim: " + out + " is up to date");
                return;
            }
        }
        Set<String> keep = new HashSet<>();
        String base = null;
        for (String line : Files.readAllLines(list, StandardCharsets.UTF_8)) {
            if (line.startsWith("# base ")) {
                base = line.substring(7).split(";")[0].trim().replace('.', '/');
            } else if (!line.isBlank() && !line.startsWith("#")) {
                keep.add(line.trim());
            }
        }
        if (base == null || !keep.contains(base)) {
            throw new IllegalStateException(list + ": no '# base' line naming a listed class");
        }
        String model = base.substring(0, base.lastIndexOf('/') + 1);
        Files.createDirectories(out.toAbsolutePath().getParent());
        Path tmp = Files.createTempFile(out.toAbsolutePath().getParent(), "aws", ".jar");
        int kept = 0;
        int stubs = 0;
        try (ZipFile in = new ZipFile(jar.toFile());
                ZipOutputStream z = new ZipOutputStream(Files.newOutputStream(tmp))) {
            for (Enumeration<? extends ZipEntry> e = in.entries(); e.hasMoreElements(); ) {
                ZipEntry entry = e.nextElement();
                String n = entry.getName();
                if (entry.isDirectory()
                        || n.startsWith("META-INF/services/") && n.contains(".warmup.")
                        || n.endsWith("TestCases.json")) {
                    continue;
                }
                if (!n.endsWith(".class")) {
                    copy(in, entry, z);
                    continue;
                }
                String cls = n.substring(0, n.length() - ".class".length());
                String top = cls.split("\\$")[0];
                if (keep.contains(top)) {
                    copy(in, entry, z);
                    kept++;
                } else if (cls.equals(top)
                        && cls.startsWith(model)
                        && cls.indexOf('/', model.length()) < 0
                        && cls.endsWith("Request")) {
                    ZipEntry s = new ZipEntry(n);
                    s.setTime(entry.getTime());
                    z.putNextEntry(s);
                    z.write(stub(cls, base));
                    z.closeEntry();
                    stubs++;
                }
            }
        }
        Files.move(tmp, out, StandardCopyOption.REPLACE_EXISTING);
        System.out.println(
                "AwsSlim: " + out + ": " + kept + " classes of " + jar.getFileName() + ", " + stubs
                        + " empty requests");
    }

    static void copy(ZipFile in, ZipEntry entry, ZipOutputStream z) throws IOException {
        ZipEntry c = new ZipEntry(entry.getName());
        c.setTime(entry.getTime());
        z.putNextEntry(c);
        try (InputStream s = in.getInputStream(entry)) {
            s.transferTo(z);
        }
        z.closeEntry();
    }

    /** A public final class NAME extends SUPER with no field, method or attribute (Java 8 file). */
    static byte[] stub(String name, String superName) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        DataOutputStream d = new DataOutputStream(b);
        d.writeInt(0xCAFEBABE);
        d.writeShort(0);
        d.writeShort(52);
        d.writeShort(5); // constant pool: #1 class #2, #2 name, #3 class #4, #4 super name
        d.writeByte(7);
        d.writeShort(2);
        d.writeByte(1);
        d.writeUTF(name);
        d.writeByte(7);
        d.writeShort(4);
        d.writeByte(1);
        d.writeUTF(superName);
        d.writeShort(0x0001 | 0x0010 | 0x0020); // public final super
        d.writeShort(1);
        d.writeShort(3);
        d.writeShort(0); // interfaces
        d.writeShort(0); // fields
        d.writeShort(0); // methods
        d.writeShort(0); // attributes
        d.flush();
        return b.toByteArray();
    }
}
