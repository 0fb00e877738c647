package dev.deja.source;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

class FileKindTest {
    private static final String K8S = "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n";
    private static final String HAPROXY = "global\n    maxconn 100\n\nfrontend fe\n    bind :80\n";

    @Test
    void aCfgWithASectionKeywordIsHaproxyEvenWhenItAlsoLooksLikeYaml() {
        assertEquals(FileKind.HAPROXY, FileKind.recognize("haproxy.cfg", HAPROXY));
        assertEquals(FileKind.HAPROXY, FileKind.recognize("lb.conf", K8S + HAPROXY));
        // a section past the first 64 KB: the part searched holds only comments, as an empty
        // config does
        String late = "# c\n".repeat(20_000) + HAPROXY;
        assertEquals(FileKind.HAPROXY, FileKind.recognize("haproxy.cfg", "\n" + late));
    }

    @Test
    void aCfgWithoutASectionIsKubernetesWhenItIsAManifestElseAnEmptyConfigOrNothing() {
        assertEquals(FileKind.KUBERNETES, FileKind.recognize("svc.cfg", K8S));
        assertEquals(FileKind.HAPROXY, FileKind.recognize("empty.cfg", "# only a comment\n\n"));
        assertNull(FileKind.recognize("setup.cfg", "[metadata]\nname = x\n"));
        assertNull(FileKind.recognize("notes.cfg", "just some words\n"));
    }

    @Test
    void otherNamesAreKubernetesFirstThenHaproxy() {
        assertEquals(FileKind.KUBERNETES, FileKind.recognize("svc.yaml", K8S + HAPROXY));
        assertEquals(FileKind.HAPROXY, FileKind.recognize("haproxy.tmpl", HAPROXY));
        assertEquals(
                FileKind.KUBERNETES,
                FileKind.recognize("svc.json", "{\"apiVersion\":\"v1\",\"kind\":\"Service\"}"));
        assertEquals(
                FileKind.SNAPSHOT,
                FileKind.recognize(
                        "s.json", "{\"format\":\"" + FileKind.SNAPSHOT_FORMAT + "\",\"v\":1}"));
        assertNull(FileKind.recognize("readme.txt", "hello\n"));
    }
}
