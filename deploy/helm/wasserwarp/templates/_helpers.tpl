{{/* The name of every object: the release's. */}}
{{- define "wasserwarp.fullname" -}}
{{ .Release.Name }}
{{- end }}

{{/* The labels that select the pods; never change them on an installed release. */}}
{{- define "wasserwarp.selectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "wasserwarp.labels" -}}
{{ include "wasserwarp.selectorLabels" . }}
app.kubernetes.io/component: server
{{- end }}

{{- define "wasserwarp.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end }}

{{/* The probes' call with TLS: the image's CLI lists the probe principal's sessions on
localhost, through TLS (the certificate must name localhost) and access control. */}}
{{- define "wasserwarp.probeCommand" -}}
- /usr/local/bin/wasserwarp
- sessions
- list
- --server=localhost:{{ .Values.ports.grpc }}
- --tls-ca=/etc/wasserwarp/tls/ca.crt
{{- if .Values.tls.clientCA }}
- --tls-cert=/etc/wasserwarp/tls/tls.crt
- --tls-key=/etc/wasserwarp/tls/tls.key
{{- end }}
{{- if .Values.auth.enabled }}
- --token-file=/etc/wasserwarp/auth/probe-token
{{- end }}
{{- end }}
