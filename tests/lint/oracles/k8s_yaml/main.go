// Command k8s_yaml decodes Kubernetes manifests as the API server's YAML decoder does and prints
// the security facts sandkit's linter reports, as JSON: the oracle of
// tests/lint/test_consumer_oracles.py.
//
// Input (standard input): a JSON array of YAML documents (one manifest each). Output: a JSON
// array, one entry per document, with the document converted by sigs.k8s.io/yaml.YAMLToJSON
// (go-yaml v2: YAML 1.1 typing, the last of duplicate keys), whether YAMLToJSONStrict refuses it,
// and the facts of its pod spec read from that JSON with the field types of k8s.io/api/core/v1
// (a boolean field holding anything but a JSON boolean makes the API server refuse the object:
// "rejected"). k8s.io/api is not packaged in Debian, so the types are checked here by hand for the
// fields the facts read; the typing of YAML itself is sigs.k8s.io/yaml's own.
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"

	"sigs.k8s.io/yaml"
)

type container struct {
	Name                     string   `json:"name"`
	Privileged               bool     `json:"privileged"`
	AllowPrivilegeEscalation bool     `json:"allowPrivilegeEscalation"`
	CapAdd                   []string `json:"capAdd"`
}

type result struct {
	Error       string      `json:"error,omitempty"`
	StrictError string      `json:"strictError,omitempty"`
	Rejected    string      `json:"rejected,omitempty"`
	Kind        string      `json:"kind,omitempty"`
	Host        []string    `json:"host"`
	Containers  []container `json:"containers"`
	HostPaths   []string    `json:"hostPaths"`
}

type rejection struct{ reason string }

func main() {
	raw, err := io.ReadAll(os.Stdin)
	if err != nil {
		fail(err)
	}
	var docs []string
	if err := json.Unmarshal(raw, &docs); err != nil {
		fail(err)
	}
	out := make([]result, 0, len(docs))
	for _, doc := range docs {
		out = append(out, decode(doc))
	}
	enc := json.NewEncoder(os.Stdout)
	if err := enc.Encode(out); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "k8s_yaml:", err)
	os.Exit(2)
}

func decode(doc string) (r result) {
	r.Host, r.Containers, r.HostPaths = []string{}, []container{}, []string{}
	if _, err := yaml.YAMLToJSONStrict([]byte(doc)); err != nil {
		r.StrictError = err.Error()
	}
	converted, err := yaml.YAMLToJSON([]byte(doc))
	if err != nil {
		r.Error = err.Error()
		return r
	}
	var obj map[string]interface{}
	if err := json.Unmarshal(converted, &obj); err != nil {
		r.Error = err.Error()
		return r
	}
	defer func() {
		if rec := recover(); rec != nil {
			rj, ok := rec.(rejection)
			if !ok {
				panic(rec)
			}
			r.Rejected = rj.reason
			r.Host, r.Containers, r.HostPaths = []string{}, []container{}, []string{}
		}
	}()
	r.Kind, _ = obj["kind"].(string)
	spec := podSpec(obj, r.Kind)
	if spec == nil {
		return r
	}
	for _, key := range []string{"hostNetwork", "hostPID", "hostIPC"} {
		if boolean(spec, key) {
			r.Host = append(r.Host, key)
		}
	}
	for _, group := range []string{"initContainers", "containers", "ephemeralContainers"} {
		for _, item := range list(spec, group) {
			c := object(item, group)
			name, _ := c["name"].(string)
			entry := container{Name: name, CapAdd: []string{}}
			if ctx := object(c["securityContext"], "securityContext"); ctx != nil {
				entry.Privileged = boolean(ctx, "privileged")
				entry.AllowPrivilegeEscalation = boolean(ctx, "allowPrivilegeEscalation")
				if caps := object(ctx["capabilities"], "capabilities"); caps != nil {
					for _, capability := range list(caps, "add") {
						text, ok := capability.(string)
						if !ok {
							panic(rejection{"capabilities.add holds a non-string"})
						}
						entry.CapAdd = append(entry.CapAdd, text)
					}
				}
			}
			r.Containers = append(r.Containers, entry)
		}
	}
	for _, item := range list(spec, "volumes") {
		volume := object(item, "volumes")
		if hostPath := object(volume["hostPath"], "hostPath"); hostPath != nil {
			path, ok := hostPath["path"].(string)
			if !ok {
				panic(rejection{"hostPath.path is not a string"})
			}
			r.HostPaths = append(r.HostPaths, path)
		}
	}
	sort.Strings(r.HostPaths)
	return r
}

// podSpec is the pod template's spec of a workload kind (core/v1, apps/v1, batch/v1).
func podSpec(obj map[string]interface{}, kind string) map[string]interface{} {
	spec := object(obj["spec"], "spec")
	switch kind {
	case "Pod":
		return spec
	case "Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job", "ReplicationController":
		return object(object(spec["template"], "template")["spec"], "template.spec")
	case "CronJob":
		job := object(object(spec["jobTemplate"], "jobTemplate")["spec"], "jobTemplate.spec")
		return object(object(job["template"], "template")["spec"], "template.spec")
	case "PodTemplate":
		return object(object(obj["template"], "template")["spec"], "template.spec")
	}
	return nil
}

func object(value interface{}, what string) map[string]interface{} {
	if value == nil {
		return nil
	}
	m, ok := value.(map[string]interface{})
	if !ok {
		panic(rejection{what + " is not an object"})
	}
	return m
}

func list(obj map[string]interface{}, key string) []interface{} {
	if obj == nil || obj[key] == nil {
		return nil
	}
	items, ok := obj[key].([]interface{})
	if !ok {
		panic(rejection{key + " is not a list"})
	}
	return items
}

// boolean is a *bool field as encoding/json decodes it: a JSON boolean, or null; anything else
// is an error, and the API server refuses the object.
func boolean(obj map[string]interface{}, key string) bool {
	if obj == nil || obj[key] == nil {
		return false
	}
	value, ok := obj[key].(bool)
	if !ok {
		panic(rejection{key + " is not a boolean"})
	}
	return value
}
