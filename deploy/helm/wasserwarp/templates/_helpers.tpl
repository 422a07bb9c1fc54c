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
