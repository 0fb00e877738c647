{{/* The full name every object is called after: "deja" for a release named deja (or containing it). */}}
{{- define "deja.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 52 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 52 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 52 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "deja.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "deja.selectorLabels" -}}
app.kubernetes.io/name: {{ include "deja.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "deja.labels" -}}
{{ include "deja.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end -}}

{{- define "deja.serviceAccountName" -}}
{{- default (include "deja.fullname" .) .Values.serviceAccount.name -}}
{{- end -}}

{{- define "deja.reportConfigMapName" -}}
{{- default (printf "%s-report" (include "deja.fullname" .)) .Values.reportConfigMap.name -}}
{{- end -}}

{{- define "deja.notifySecretName" -}}
{{- default (printf "%s-notify" (include "deja.fullname" .)) .Values.notify.secretName -}}
{{- end -}}

{{/* deja.yaml: .Values.config plus the settings the chart owns (report ConfigMap, baseline, notify, pushgateway). */}}
{{- define "deja.config" -}}
{{- $cfg := deepCopy .Values.config -}}
{{- if .Values.reportConfigMap.enabled -}}
{{- $cm := printf "%s/%s" .Release.Namespace (include "deja.reportConfigMapName" .) -}}
{{- $_ := set $cfg "reportConfigMap" $cm -}}
{{- if .Values.reportConfigMap.baseline -}}
{{- $_ := set $cfg "baseline" (printf "configmap:%s" $cm) -}}
{{- end -}}
{{- end -}}
{{- if .Values.notify.enabled -}}
{{- $_ := set $cfg "notify" "env:DEJA_NOTIFY_URL" -}}
{{- end -}}
{{- if .Values.pushgateway.url -}}
{{- $_ := set $cfg "pushgateway" .Values.pushgateway.url -}}
{{- end -}}
{{- if .Values.customRules.configMap -}}
{{- $_ := set $cfg "rulesDirs" (list "/etc/deja-rules") -}}
{{- end -}}
{{- toYaml $cfg -}}
{{- end -}}
