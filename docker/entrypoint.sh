#!/bin/sh
# deja image's ENTRYPOINT: the JVM options of ./deja, then exec java, which stays PID 1 and gets the signals.
# AppCDS archive when it fits (-Xshare:auto; its log off: a "cannot use the archive" warning goes to stdout, where it
# would break a JSON or SARIF report); no perf data file (read-only root filesystem); C1 only, the serial collector, a
# young generation of half the heap; a first heap of 4% of the memory limit and at most 70% (the rest is metaspace,
# thread stacks and the JDK's buffers).
opts="-XX:SharedArchiveFile=/opt/deja/deja.jsa -Xshare:auto -Xlog:cds=off,cds+dynamic=off -XX:-UsePerfData -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -XX:NewRatio=1 -XX:InitialRAMPercentage=4 -XX:MaxRAMPercentage=70 -Djava.io.tmpdir=/tmp"
# As ./deja: where the kernel offers transparent huge pages on request ("madvise", or "always"), the heap asks for them
# (a scan touches most of its heap once; 2 MB pages cut its page faults). A container sees the host's setting.
case "$(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)" in
  *"[madvise]"*|*"[always]"*) opts="$opts -XX:+UseTransparentHugePages" ;;
esac
# DEJA_JAVA_OPTS adds JVM options, split on spaces (e.g. -Xmx2g): a variable the JVM itself reads (JAVA_TOOL_OPTIONS,
# JDK_JAVA_OPTIONS) would print "Picked up ..." in every job log.
# The jar on the class path rather than -jar, as ./deja: with -jar the JVM reads the jar's central directory (32,000
# entries) twice, once for its manifest and again for the classes.
# shellcheck disable=SC2086
exec java $opts ${DEJA_JAVA_OPTS:-} -cp /opt/deja/deja.jar dev.deja.Main "$@"
