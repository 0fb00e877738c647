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
ENTRYPOINT ["java", "-XX:-UsePerfData", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-XX:NewRatio=1", "-Djava.io.tmpdir=/tmp", "-jar", "/opt/deja/deja.jar"]
CMD ["--help"]
