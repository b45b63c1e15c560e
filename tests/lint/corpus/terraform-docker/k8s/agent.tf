resource "kubernetes_daemon_set_v1" "node_agent" {
  metadata {
    name      = "node-agent"
    namespace = "agents"
  }

  spec {
    selector {
      match_labels = {
        app = "node-agent"
      }
    }

    template {
      metadata {
        labels = {
          app = "node-agent"
        }
      }

      spec {
        host_network = true

        container {
          name  = "agent"
          image = "ghcr.io/acme/agent-runner:1.4"

          security_context {
            privileged = true
          }
        }

        volume {
          name = "containerd"
          host_path {
            path = "/run/containerd/containerd.sock"
          }
        }
      }
    }
  }
}

resource "kubernetes_manifest" "debug_pod" {
  manifest = {
    apiVersion = "v1"
    kind       = "Pod"
    metadata = {
      name      = "debug"
      namespace = "default"
    }
    spec = {
      hostPID = true
      containers = [
        {
          name  = "debug"
          image = "busybox:1.36"
          securityContext = {
            capabilities = { add = ["SYS_PTRACE"] }
          }
        },
      ]
    }
  }
}
