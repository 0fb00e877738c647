# deja container image: build the shaded jar with Maven, run it on a JRE as a non-root user.
# Works with a read-only root filesystem: the JVM writes no perf data (-XX:-UsePerfData) and deja writes only
# where its outputs are pointed (-o / --output, e.g. an emptyDir mounted at /reports). JVM options as in ./deja: C1
# only, the serial collector and a young generation of half the heap (a scan is short and allocates in bursts).

# ---- build stage
FROM maven:3.9.11-eclipse-temurin-17 AS build
WORKDIR /src
COPY pom.xml ./
RUN mvn -B -q dependency:go-offline
COPY rules ./rules
COPY src/main ./src/main
RUN mvn -B -q -DskipTests package

# ---- runtime stage
FROM eclipse-temurin:17.0.16_8-jre AS runtime
LABEL org.opencontainers.image.title="deja" \
      org.opencontainers.image.description="Scans Kubernetes, HAProxy and AWS load balancers for the risk patterns of real incidents"
COPY --from=build /src/target/deja.jar /opt/deja/deja.jar
USER 10001:10001
WORKDIR /opt/deja
# The heap follows the container's memory limit (-XX:MaxRAMPercentage=70: the rest is metaspace, thread stacks and
# the JDK's buffers). DEJA_JAVA_OPTS adds JVM options, as with ./deja (split on spaces; e.g. -Xmx2g): a variable the
# JVM itself reads (JAVA_TOOL_OPTIONS, JDK_JAVA_OPTIONS) would print "Picked up ..." in every job log. The shell
# only expands it and execs java, which stays PID 1 and gets the signals.
ENTRYPOINT ["/bin/sh", "-c", "exec java -XX:-UsePerfData -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -XX:NewRatio=1 -XX:MaxRAMPercentage=70 -Djava.io.tmpdir=/tmp ${DEJA_JAVA_OPTS:-} -jar /opt/deja/deja.jar \"$@\"", "deja"]
CMD ["--help"]
