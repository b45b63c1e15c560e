// argo-sensor plays, for the tests, what Argo Events v1.9.11 does between a webhook request and the
// Job its Sensor creates, with the same libraries (encoding/json, regexp, gjson):
//
//  1. the webhook EventSource's event data: {"header": ..., "body": ...}, the body kept as raw JSON,
//     or a form body as a mapping of value lists (pkg/eventsources/sources/webhook/start.go);
//  2. the Sensor's data filters: gjson path, the value's String() matched by each regexp
//     (pkg/sensors/dependencies/filter.go, type string, comparator "=");
//  3. the trigger's parameters: gjson's value at dataKey (its Raw text for JSON, String() otherwise)
//     set as a string at dest in the Job (pkg/sensors/triggers/params.go). dest is written here
//     with encoding/json instead of sjson (not packaged by Debian), for the plain dotted paths
//     with `\.` escapes that sandkit writes.
//
// Input on stdin: a JSON list of {"body", "content_type", "sensor"}; output: a JSON list of
// {"passed", "job"} (job is null when a filter fails).
package main

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"strings"

	"github.com/tidwall/gjson"
)

type request struct {
	Body        string                 `json:"body"`
	ContentType string                 `json:"content_type"`
	Sensor      map[string]interface{} `json:"sensor"`
}

type eventData struct {
	Header map[string][]string `json:"header"`
	Body   *json.RawMessage    `json:"body"`
}

type result struct {
	Passed bool                   `json:"passed"`
	Job    map[string]interface{} `json:"job"`
}

func eventOf(r request) ([]byte, error) {
	raw := json.RawMessage(r.Body)
	if r.ContentType == "application/x-www-form-urlencoded" {
		form, err := url.ParseQuery(r.Body)
		if err != nil {
			return nil, err
		}
		encoded, err := json.Marshal(form)
		if err != nil {
			return nil, err
		}
		raw = json.RawMessage(encoded)
	}
	return json.Marshal(&eventData{Header: map[string][]string{"Content-Type": {r.ContentType}}, Body: &raw})
}

func get(value interface{}, keys ...string) interface{} {
	for _, key := range keys {
		value = value.(map[string]interface{})[key]
	}
	return value
}

func passes(data []byte, filters []interface{}) bool {
	for _, f := range filters {
		filter := f.(map[string]interface{})
		found := gjson.GetBytes(data, filter["path"].(string))
		if !found.Exists() {
			return false
		}
		matched := false
		for _, pattern := range filter["value"].([]interface{}) {
			if regexp.MustCompile(pattern.(string)).MatchString(found.String()) {
				matched = true
			}
		}
		if !matched {
			return false
		}
	}
	return true
}

func splitDest(dest string) []string {
	var parts []string
	var current strings.Builder
	for i := 0; i < len(dest); i++ {
		switch {
		case dest[i] == '\\' && i+1 < len(dest):
			i++
			current.WriteByte(dest[i])
		case dest[i] == '.':
			parts = append(parts, current.String())
			current.Reset()
		default:
			current.WriteByte(dest[i])
		}
	}
	return append(parts, current.String())
}

func setString(object map[string]interface{}, path []string, value string) {
	for _, key := range path[:len(path)-1] {
		next, ok := object[key].(map[string]interface{})
		if !ok {
			next = map[string]interface{}{}
			object[key] = next
		}
		object = next
	}
	object[path[len(path)-1]] = value
}

func run(r request) (result, error) {
	data, err := eventOf(r)
	if err != nil {
		return result{}, err
	}
	dependency := get(r.Sensor, "spec", "dependencies").([]interface{})[0]
	if filters, ok := dependency.(map[string]interface{})["filters"]; ok {
		if !passes(data, get(filters, "data").([]interface{})) {
			return result{Passed: false}, nil
		}
	}
	trigger := get(r.Sensor, "spec", "triggers").([]interface{})[0]
	k8s := get(trigger, "template", "k8s").(map[string]interface{})
	job := get(k8s, "source", "resource").(map[string]interface{})
	for _, p := range k8s["parameters"].([]interface{}) {
		parameter := p.(map[string]interface{})
		found := gjson.GetBytes(data, get(parameter, "src", "dataKey").(string))
		if !found.Exists() {
			return result{}, fmt.Errorf("dataKey resolves to nothing")
		}
		value := found.String()
		if found.Type == gjson.JSON {
			value = found.Raw
		}
		setString(job, splitDest(parameter["dest"].(string)), value)
	}
	return result{Passed: true, Job: job}, nil
}

func main() {
	var requests []request
	if err := json.NewDecoder(os.Stdin).Decode(&requests); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	results := make([]result, 0, len(requests))
	for _, r := range requests {
		out, err := run(r)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		results = append(results, out)
	}
	if err := json.NewEncoder(os.Stdout).Encode(results); err != nil {
		os.Exit(1)
	}
}
