{{- define "risky.labels" -}}
app.kubernetes.io/name: ingress-nginx
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: controller
{{- end -}}
