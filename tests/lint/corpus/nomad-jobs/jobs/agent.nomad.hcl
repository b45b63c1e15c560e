# Runs the review agent on every Nomad client, with the host's Docker engine.
job "review-agent" {
  datacenters = ["dc1"]
  type        = "system"

  group "agent" {
    network {
      mode = "host"
    }

    task "agent" {
      driver = "docker"

      config {
        image        = "ghcr.io/acme/claude-code-runner:2.1"
        args         = ["--print", "review the open pull requests"]
        volumes      = ["local/config:/etc/agent", "/var/run/docker.sock:/var/run/docker.sock"]
        cap_add      = ["SYS_ADMIN"]
        privileged   = true
        security_opt = ["apparmor=unconfined"]

        mount {
          type   = "bind"
          source = "/root/.ssh"
          target = "/home/agent/.ssh"
        }
      }

      env {
        DOCKER_HOST = "tcp://10.0.0.5:2375"
        LOG_LEVEL   = "info"
      }

      template {
        data        = <<EOF
docker_socket = "/var/run/docker.sock"
EOF
        destination = "local/config/agent.hcl"
      }
    }

    task "cleanup" {
      driver = "raw_exec"

      config {
        command = "/usr/local/bin/cleanup"
        args    = ["--older-than", "24h"]
      }
    }
  }
}
